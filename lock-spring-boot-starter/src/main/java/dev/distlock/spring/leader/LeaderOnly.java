package dev.distlock.spring.leader;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method of a Spring bean only while this instance leads the name. Elsewhere the call returns at
 * once with null (an empty {@code Optional} for an {@code Optional} method). Made for {@code @Scheduled} methods that
 * one instance of a cluster should run. The name is campaigned for from start-up, or from the bean's creation for a
 * bean created later. Start-up waits briefly for a name nobody holds, so the first scheduled run already leads.
 *
 * <p>Leadership can end while the method runs. Work that writes to a shared resource should pass
 * {@link LeaderElection#epoch(String)} with its writes so a deposed leader is refused.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

    /** The name led (the lock key campaigned for). Placeholders like {@code ${app.leader}} are resolved. */
    String value();
}
