package dev.distlock.spring.aspect;

import dev.distlock.core.LockHandle;
import dev.distlock.core.multi.MultiLockHandle;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The holds of the {@code @DistributedLock} methods running on each thread, innermost last. The interceptors push and
 * pop them, and {@link dev.distlock.spring.LockContext} reads them. Not for application code.
 */
public final class HeldLocks {

    private static final ThreadLocal<Deque<Object>> HELD = new ThreadLocal<>();

    private HeldLocks() {}

    /** This thread's holds ({@link LockHandle} or {@link MultiLockHandle}), innermost last, or null when none. */
    public static Deque<Object> current() {
        return HELD.get();
    }

    /** This thread's innermost hold, or null. */
    public static Object innermost() {
        Deque<Object> held = HELD.get();
        return held == null ? null : held.peekLast();
    }

    static void push(LockHandle handle) {
        pushEntry(handle);
    }

    static void push(MultiLockHandle handle) {
        pushEntry(handle);
    }

    static void pop(Object handle) {
        Deque<Object> held = HELD.get();
        if (held == null) {
            return;
        }
        held.removeLastOccurrence(handle);
        if (held.isEmpty()) {
            HELD.remove();
        }
    }

    private static void pushEntry(Object entry) {
        Deque<Object> held = HELD.get();
        if (held == null) {
            held = new ArrayDeque<>();
            HELD.set(held);
        }
        held.addLast(entry);
    }
}
