package dev.distlock.spring;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The locks that {@link DistributedLock} methods on the current thread hold, innermost last.
 * Read the fencing token here and pass it with every write to the protected resource.
 */
public final class LockContext {

    private static final ThreadLocal<Deque<LockHandle>> HELD = new ThreadLocal<>();

    private LockContext() {}

    /**
     * The fencing token of the innermost {@link DistributedLock} method running on this thread.
     *
     * @throws IllegalStateException when called outside a {@code @DistributedLock} method
     */
    public static FencingToken currentToken() {
        return currentHandle()
                .orElseThrow(() -> new IllegalStateException("LockContext.currentToken() was called outside a"
                        + " @DistributedLock method on thread "
                        + Thread.currentThread().getName()
                        + "; call it inside the annotated method (or use LockRegistry directly)."))
                .token();
    }

    /** The fencing token of the innermost held lock, or empty outside a {@code @DistributedLock} method. */
    public static Optional<FencingToken> findCurrentToken() {
        return currentHandle().map(LockHandle::token);
    }

    /**
     * The innermost hold, or empty outside a {@code @DistributedLock} method. Its
     * {@link LockHandle#isValid()} turns false once the lease is known lost: stop writing then.
     */
    public static Optional<LockHandle> currentHandle() {
        Deque<LockHandle> held = HELD.get();
        return held == null ? Optional.empty() : Optional.ofNullable(held.peekLast());
    }

    static void push(LockHandle handle) {
        Deque<LockHandle> held = HELD.get();
        if (held == null) {
            held = new ArrayDeque<>();
            HELD.set(held);
        }
        held.addLast(handle);
    }

    static void pop(LockHandle handle) {
        Deque<LockHandle> held = HELD.get();
        if (held == null) {
            return;
        }
        held.removeLastOccurrence(handle);
        if (held.isEmpty()) {
            HELD.remove();
        }
    }
}
