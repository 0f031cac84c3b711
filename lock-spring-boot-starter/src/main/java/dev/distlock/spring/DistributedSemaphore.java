package dev.distlock.spring;

import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.spring.DistributedLock.OnFailure;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method of a Spring bean while holding {@link #permitsPerCall()} permits of a distributed
 * semaphore of {@link #permits()} permits ({@code dev.distlock.core.semaphore.LeasedSemaphore}), so that at most that
 * many calls run at once across all instances. The semaphore's name is {@code name + ":" + key}, or just {@code name}
 * when {@link #key()} is empty. The permits are taken before any {@code @DistributedLock} and {@code @Transactional} of
 * the same method and given back when it returns or throws.
 *
 * <p>Only methods that return a plain value may use it. Asynchronous and reactive return types (and Kotlin
 * {@code suspend} functions) fail start-up, since permits given back on return would limit nothing. Every instance
 * must declare a name with the same {@code permits} (see {@code docs/semaphores.md}).
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface DistributedSemaphore {

    /** The semaphore's name, a literal. Required. */
    String name();

    /** How many permits the semaphore has, from 1 to 1024, the same on every instance. */
    int permits();

    /**
     * A SpEL expression over the method's parameters, as for {@link DistributedLock#key()}. Each value gets its own
     * semaphore of {@link #permits()} permits, named {@code name + ":" + value}. Empty means one semaphore for the
     * method.
     */
    String key() default "";

    /** How many permits one call holds, from 1 to {@link #permits()}. */
    int permitsPerCall() default 1;

    /**
     * How long to wait for the permits, as a duration string ({@code 500ms}, {@code 2s}). {@code ${...}}
     * placeholders are allowed. Empty means {@code distributed-lock.wait-time}.
     */
    String waitTime() default "";

    /**
     * A fixed lease per permit, ending after this duration and not renewed. Empty means the watchdog lease
     * ({@code distributed-lock.lease-time}, renewed while the method runs).
     */
    String leaseTime() default "";

    /**
     * What to do when the permits did not come free within the wait time. As for {@link DistributedLock}, the
     * default throws a {@link LockNotAcquiredException}, except on {@code @Scheduled} methods, which skip the run.
     */
    OnFailure onFailure() default OnFailure.DEFAULT;

    /** Bean name of the {@link dev.distlock.core.LockRegistry} to use, when there are several. */
    String registry() default "";
}
