package dev.distlock.test;

import dev.distlock.core.FencingToken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * What happened to the locks of a controlled registry, in order: acquisitions with their tokens,
 * threads and owners, releases, renewals, losses, other instances' holds, failed calls and calls
 * made without the lock. It is thread-safe, and {@link LockControl#reset()} clears it.
 */
public final class LockHistory {

    private final List<LockEvent> events = new ArrayList<>();

    synchronized void add(LockEvent event) {
        events.add(event);
        notifyAll();
    }

    /**
     * Waits until an event of {@code kind} for {@code key} is recorded (or was already), so a test
     * can let its threads meet without sleeping, e.g. until the code under test holds its lock.
     *
     * @return the first such event
     * @throws AssertionError when none came within {@code timeout}, with the history so far
     */
    public synchronized LockEvent await(LockEvent.Kind kind, String key, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (LockEvent event : events) {
                if (event.kind() == kind && event.key().equals(key)) {
                    return event;
                }
            }
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(
                        "No " + kind + " event for lock '" + key + "' within " + timeout + "; " + this);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    synchronized void clear() {
        events.clear();
    }

    /** Every event so far, oldest first. */
    public synchronized List<LockEvent> events() {
        return List.copyOf(events);
    }

    /** The events of {@code key}, oldest first. */
    public List<LockEvent> events(String key) {
        return select(event -> event.key().equals(key));
    }

    /** The events of one kind, oldest first. */
    public List<LockEvent> events(LockEvent.Kind kind) {
        return select(event -> event.kind() == kind);
    }

    /** The keys in the order they were acquired by this application (one entry per hold). */
    public List<String> acquiredKeys() {
        return events(LockEvent.Kind.ACQUIRED).stream().map(LockEvent::key).toList();
    }

    /** The tokens of the holds of {@code key} in the order they were granted, other instances' included. */
    public List<FencingToken> tokens(String key) {
        return select(event -> event.key().equals(key)
                        && (event.kind() == LockEvent.Kind.ACQUIRED || event.kind() == LockEvent.Kind.HELD_ELSEWHERE))
                .stream()
                .map(LockEvent::token)
                .toList();
    }

    /** Calls that {@link LockControl#assertHeld} caught running without their lock. */
    public List<LockEvent> unheldCalls() {
        return events(LockEvent.Kind.UNHELD_CALL);
    }

    private synchronized List<LockEvent> select(Predicate<LockEvent> filter) {
        List<LockEvent> selected = new ArrayList<>();
        for (LockEvent event : events) {
            if (filter.test(event)) {
                selected.add(event);
            }
        }
        return selected;
    }

    @Override
    public synchronized String toString() {
        StringBuilder text = new StringBuilder("LockHistory[");
        for (LockEvent event : events) {
            text.append("\n  ")
                    .append(event.at())
                    .append(' ')
                    .append(event.kind())
                    .append(' ')
                    .append(event.key())
                    .append(" token ")
                    .append(event.token())
                    .append(" by ")
                    .append(event.owner())
                    .append(" on ")
                    .append(event.thread());
            if (!event.detail().isEmpty()) {
                text.append(": ").append(event.detail());
            }
        }
        return text.append(events.isEmpty() ? "]" : "\n]").toString();
    }
}
