package dev.distlock.integration;

import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The handles each thread holds per key, most recent last: Spring Integration's locks are
 * released by {@code unlock()} and renewed by key, so the adapter keeps the handles that
 * distlock's acquisitions return. An entry lives only while its thread holds the key.
 */
final class Holds {

    /** One acquisition; {@code leaseTime} is null when the watchdog renews the lease. */
    record Held(LockHandle handle, Duration leaseTime) {}

    private record Owner(String key, Thread thread) {}

    private final ConcurrentHashMap<Owner, Deque<Held>> held = new ConcurrentHashMap<>();

    /**
     * Records an acquisition by the current thread. A reentrant one shares the first hold's lease,
     * so it keeps that hold's lease time.
     */
    void push(String key, LockHandle handle, Duration leaseTime) {
        held.compute(new Owner(key, Thread.currentThread()), (owner, stack) -> pushed(stack, handle, leaseTime));
    }

    private static Deque<Held> pushed(Deque<Held> stack, LockHandle handle, Duration leaseTime) {
        Deque<Held> handles = stack == null ? new ArrayDeque<>() : stack;
        Duration lease = handles.isEmpty() ? leaseTime : handles.peekFirst().leaseTime();
        handles.addLast(new Held(handle, lease));
        return handles;
    }

    /** The current thread's latest acquisition of {@code key}, or null when it holds none. */
    Held latest(String key) {
        Deque<Held> handles = held.get(new Owner(key, Thread.currentThread()));
        return handles == null ? null : handles.peekLast();
    }

    /** Removes and returns the current thread's latest acquisition of {@code key}. Null when none. */
    Held pop(String key) {
        Held[] popped = new Held[1];
        held.computeIfPresent(new Owner(key, Thread.currentThread()), (owner, handles) -> {
            popped[0] = handles.pollLast();
            return handles.isEmpty() ? null : handles;
        });
        return popped[0];
    }

    /**
     * Removes and returns all the current thread's acquisitions of {@code key} when the latest one's
     * hold was lost (the earlier ones count under the same owner, so they go with it). None when it
     * is still valid.
     */
    List<Held> dropLost(String key) {
        List<Held> dropped = new ArrayList<>();
        held.computeIfPresent(new Owner(key, Thread.currentThread()), (owner, handles) -> {
            if (handles.peekLast().handle().isValid()) {
                return handles;
            }
            dropped.addAll(handles);
            return null;
        });
        return dropped;
    }

    /** Replaces the lease time of the current thread's acquisitions of {@code key}. */
    void leaseTime(String key, Duration leaseTime) {
        held.computeIfPresent(new Owner(key, Thread.currentThread()), (owner, handles) -> {
            Deque<Held> updated = new ArrayDeque<>();
            handles.forEach(h -> updated.addLast(new Held(h.handle(), leaseTime)));
            return updated;
        });
    }
}
