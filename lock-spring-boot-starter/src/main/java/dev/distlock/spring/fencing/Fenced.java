package dev.distlock.spring.fencing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares the resource a method writes (or reads), checked with the current distlock hold's token before the
 * method's body. When the method is {@code @Transactional}, the check is the transaction's first statement, and the
 * SQL fence row then stays locked until the commit. A stale token throws {@link StaleFencingTokenException} and the
 * body does not run. The resource is {@code name + ":" + key}, or the hold's lock key when both are empty.
 *
 * <pre>{@code
 * @DistributedLock(name = "stock", key = "#sku")
 * @Transactional
 * @Fenced
 * public void buy(String sku, int quantity) { ... }
 * }</pre>
 *
 * The hold may come from a {@code @DistributedLock} on this method or on a caller up the stack. Rules and guarantees
 * are in {@code docs/fencing.md}.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Fenced {

    /** The resource's name, a literal. Empty (with no key) means the current hold's lock key. */
    String name() default "";

    /**
     * A SpEL expression over the method's parameters, as {@code @DistributedLock}'s key, appended
     * to {@link #name()} after a colon. A {@code null} result is an error.
     */
    String key() default "";

    /** Whether the method writes the resource (the fence is raised) or only reads it. */
    Access access() default Access.WRITE;

    /** Bean name of the {@link dev.distlock.core.fencing.FenceStore} to check, when there are several. */
    String store() default "";

    /** What a {@link Fenced} method does to its resource. */
    enum Access {
        /** Writes. The token must not be below the highest accepted, and raises it. */
        WRITE,
        /** Reads. The token must not be below the highest accepted write, and nothing is raised. */
        READ
    }
}
