package dev.distlock.spring;

import dev.distlock.core.LockNotAcquiredException;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method of a Spring bean while holding a distributed lock. The lock key is
 * {@code name + ":" + key}, or just {@code name} when {@link #key()} is empty. The lock wraps any
 * {@code @Transactional} on the same method, so it is released only after the commit. Inside the
 * method, {@link LockContext#currentToken()} gives the hold's fencing token.
 *
 * <p>The method may be declared on a class or on an interface the bean implements. Methods that
 * return {@code CompletionStage}/{@code CompletableFuture}, or with Reactor {@code Mono}/{@code Flux},
 * hold the lock until the work they return completes, fails or is cancelled. The lock is taken
 * without blocking the caller (on subscription for reactive types). With lock-kotlin on the classpath,
 * Kotlin {@code suspend} functions and functions that return a {@code Flow} hold the lock until they
 * complete, fail or are cancelled (without it they fail start-up, naming the artifact to add). Other
 * asynchronous return types ({@code Future}, other {@code Publisher}s) fail start-up.
 *
 * <p>With {@link #keys()} the method holds several keys at once, all or nothing, taken in one global order so
 * that methods locking overlapping keys in any order never deadlock ({@code docs/multi-key-locks.md}). Inside,
 * {@link LockContext#currentToken(String)} gives each key's token.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface DistributedLock {

    /** The lock's name, a literal. Empty means {@code SimpleClassName.methodName}. */
    String name() default "";

    /**
     * A SpEL expression over the method's parameters (by name, or {@code #p0}/{@code #a0}), like
     * {@code @Cacheable}'s key, e.g. {@code "#order.sku"}. Empty means one lock for the whole method.
     * A {@code null} result is an error.
     */
    String key() default "";

    /**
     * Several keys, held all or nothing for the call, instead of {@link #key()}. Setting both fails start-up.
     * Give SpEL expressions like {@link #key()}, e.g. {@code {"#from", "#to"}}, or one expression that yields a
     * collection or an array, e.g. {@code "#accountIds"}, whose elements are the keys. Each key is composed as
     * {@link #key()} is ({@code name + ":" + value}), and duplicates count once. The keys are taken in their natural
     * order, whatever order the method names them in, so two calls that share keys never deadlock. Only methods that
     * return a plain value and take the exclusive lock ({@link Mode#EXCLUSIVE}) may use it. Other methods fail
     * start-up. Inside the method, {@link LockContext#currentToken(String)} and {@link
     * LockContext#currentTokens()} give each key's token.
     */
    String[] keys() default {};

    /**
     * How long to wait for the lock, as a duration string ({@code 500ms}, {@code 2s}, {@code PT1S}).
     * {@code ${...}} placeholders are allowed. Empty means {@code distributed-lock.wait-time}.
     */
    String waitTime() default "";

    /**
     * A fixed lease ending after this duration, not renewed. Empty means the watchdog lease
     * ({@code distributed-lock.lease-time}, renewed while the method runs).
     */
    String leaseTime() default "";

    /**
     * What to do when the lock was not acquired within the wait time. The default throws, except
     * on {@code @Scheduled} methods, where it skips the run because another instance is running the job.
     */
    OnFailure onFailure() default OnFailure.DEFAULT;

    /**
     * Which lock of the key to take. It is the exclusive lock (default), or the read or write side of the key's
     * read/write lock (see {@code docs/read-write-locks.md} for how they relate).
     */
    Mode mode() default Mode.EXCLUSIVE;

    /**
     * A minimum hold. When the method finishes earlier, the key stays held until this long after
     * the acquisition, as a fixed lease on the server (no thread waits). This keeps a short scheduled job
     * from running twice when the instances' schedulers fire a little apart. Empty means none.
     */
    String holdAtLeast() default "";

    /** Bean name of the {@link dev.distlock.core.LockRegistry} to use, when there are several. */
    String registry() default "";

    /** Which lock of the key a {@link DistributedLock} method takes. */
    enum Mode {
        /** The key's exclusive lock, as {@code LockRegistry.obtain(key)}. */
        EXCLUSIVE,
        /** The read side of {@code LockRegistry.readWriteLock(key)}. Readers share it. */
        READ,
        /** The write side of {@code LockRegistry.readWriteLock(key)}. It excludes readers and writers. */
        WRITE
    }

    /** What a {@link DistributedLock} method does when the lock is not acquired in time. */
    enum OnFailure {
        /** {@link #SKIP} on {@code @Scheduled} methods, {@link #THROW} on all others. */
        DEFAULT,
        /** Throw {@link LockNotAcquiredException}. */
        THROW,
        /**
         * Do not run the method. Return {@code null}, an empty {@code Optional}, a future completed
         * with {@code null}, or an empty {@code Mono}/{@code Flux}. Not allowed on methods returning a
         * primitive (checked at start-up).
         */
        SKIP
    }
}
