package dev.distlock.spring;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.multi.MultiLockHandle;
import dev.distlock.spring.aspect.HeldLocks;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * The locks that {@link DistributedLock} methods on the current thread hold, innermost last.
 * Read the fencing token here and pass it with every write to the protected resource.
 *
 * <p>A method with {@link DistributedLock#keys()} holds a token per key. Read them with {@link
 * #currentToken(String)} or {@link #currentTokens()}. While such a method is the innermost, the single-key
 * accessors have no one token to give. Then {@link #currentToken()} throws, and {@link #findCurrentToken()} and
 * {@link #currentHandle()} are empty.
 */
public final class LockContext {

    /** Each entry a {@link LockHandle} or, for a method with several keys, a {@link MultiLockHandle}. */
    private LockContext() {}

    /**
     * The fencing token of the innermost {@link DistributedLock} method running on this thread.
     *
     * @throws IllegalStateException when called outside a {@code @DistributedLock} method, or inside one that
     *     holds several keys (use {@link #currentToken(String)} there)
     */
    public static FencingToken currentToken() {
        Object innermost = innermost();
        if (innermost instanceof MultiLockHandle multi) {
            throw new IllegalStateException("LockContext.currentToken() was called inside a @DistributedLock method"
                    + " that holds several keys " + multi.keys() + " on thread "
                    + Thread.currentThread().getName()
                    + ", so there is no one token; read a key's token with LockContext.currentToken(key).");
        }
        if (innermost == null) {
            throw new IllegalStateException("LockContext.currentToken() was called outside a"
                    + " @DistributedLock method on thread "
                    + Thread.currentThread().getName()
                    + "; call it inside the annotated method (or use LockRegistry directly).");
        }
        return ((LockHandle) innermost).token();
    }

    /**
     * The fencing token of the innermost held lock, or empty outside a {@code @DistributedLock} method (and
     * inside one that holds several keys).
     */
    public static Optional<FencingToken> findCurrentToken() {
        return currentHandle().map(LockHandle::token);
    }

    /**
     * The innermost hold, or empty outside a {@code @DistributedLock} method (and inside one that holds several
     * keys, see {@link #currentMultiHandle()}). Its {@link LockHandle#isValid()} turns false once the lease is
     * known lost. Stop writing then.
     */
    public static Optional<LockHandle> currentHandle() {
        return innermost() instanceof LockHandle handle ? Optional.of(handle) : Optional.empty();
    }

    /**
     * The hold of the innermost {@code @DistributedLock} method when it holds several keys ({@link
     * DistributedLock#keys()}), or empty otherwise. Its {@link MultiLockHandle#isValid()} turns false once any
     * key's lease is known lost.
     */
    public static Optional<MultiLockHandle> currentMultiHandle() {
        return innermost() instanceof MultiLockHandle multi ? Optional.of(multi) : Optional.empty();
    }

    /**
     * The fencing token of lock key {@code key} ({@code name + ":" + value}, as the annotation composes it), held
     * by the innermost {@code @DistributedLock} method on this thread that holds that key, with {@link
     * DistributedLock#key()} or {@link DistributedLock#keys()}.
     *
     * @throws IllegalStateException when no {@code @DistributedLock} method on this thread holds {@code key}
     */
    public static FencingToken currentToken(String key) {
        Deque<Object> held = HeldLocks.current();
        if (held != null) {
            for (Iterator<Object> it = held.descendingIterator(); it.hasNext(); ) {
                Object entry = it.next();
                if (entry instanceof MultiLockHandle multi && multi.keys().contains(key)) {
                    return multi.token(key);
                }
                if (entry instanceof LockHandle handle && handle.key().equals(key)) {
                    return handle.token();
                }
            }
        }
        throw new IllegalStateException(
                "No @DistributedLock method on thread " + Thread.currentThread().getName()
                        + " holds lock '" + key + "'" + (held == null ? "" : "; held: " + heldKeys(held))
                        + ". Pass the key as the annotation composes it: name + \":\" + the value of the key expression.");
    }

    /**
     * The fencing token of each key the innermost {@code @DistributedLock} method holds, by lock key, in the
     * order the keys were taken (one entry for a method with one key).
     *
     * @throws IllegalStateException when called outside a {@code @DistributedLock} method
     */
    public static Map<String, FencingToken> currentTokens() {
        Object innermost = innermost();
        if (innermost instanceof MultiLockHandle multi) {
            return multi.tokens();
        }
        if (innermost instanceof LockHandle handle) {
            return Map.of(handle.key(), handle.token());
        }
        throw new IllegalStateException("LockContext.currentTokens() was called outside a @DistributedLock method"
                + " on thread " + Thread.currentThread().getName() + "; call it inside the annotated method.");
    }

    private static Object innermost() {
        return HeldLocks.innermost();
    }

    private static String heldKeys(Deque<Object> held) {
        StringBuilder keys = new StringBuilder();
        for (Object entry : held) {
            if (keys.length() > 0) {
                keys.append(", ");
            }
            keys.append(entry instanceof MultiLockHandle multi ? multi.keys() : ((LockHandle) entry).key());
        }
        return keys.toString();
    }
}
