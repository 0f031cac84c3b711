package dev.distlock.test;

import dev.distlock.core.FencingToken;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The state of a {@link TestLockServer}, its held keys under one lock, with a condition signalled
 * when one frees or the clock jumps, the token counter, the clock and the history of events.
 */
final class ServerState {

    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();
    final Map<String, ServerHold> holds = new HashMap<>();
    final TestClock clock = new TestClock();
    final LockHistory history = new LockHistory();
    private long lastToken;

    /** The server's clock in nanoseconds, the JVM's monotonic clock plus what tests advanced it by. */
    long now() {
        return clock.now();
    }

    /** How long the server has run on its clock. */
    Duration elapsed() {
        return clock.elapsed();
    }

    /** Under {@code lock}. */
    long nextToken() {
        return ++lastToken;
    }

    /** Under {@code lock}. */
    void free(String fullKey) {
        holds.remove(fullKey);
        changed.signalAll();
    }

    void record(LockEvent.Kind kind, String appKey, FencingToken token, String owner, String detail) {
        history.add(
                new LockEvent(kind, appKey, token, owner, Thread.currentThread().getName(), elapsed(), detail));
    }

    /** Records a call that concerned no hold. No token, no owner. */
    void recordCall(LockEvent.Kind kind, String appKey, String detail) {
        history.add(LockEvent.ofCall(kind, appKey, Thread.currentThread().getName(), elapsed(), detail));
    }
}
