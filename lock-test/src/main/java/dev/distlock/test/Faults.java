package dev.distlock.test;

import java.time.Duration;

/**
 * The outages and slowness a test has asked for, as a number of calls or a time on the test clock.
 * Every call to the simulated server (acquire, renew, release, who-holds, force-release, verify, and
 * the renewals the test clock makes) asks it first.
 */
final class Faults {

    private int failingCalls;
    /** On the server's clock. 0 when no timed outage is set. */
    private long failingUntil;

    private int slowCalls;
    private long slowUntil;
    private long delayNanos;

    synchronized void failCalls(int calls) {
        if (calls < 1) {
            throw new IllegalArgumentException("calls must be at least 1, was " + calls);
        }
        failingCalls = calls;
    }

    synchronized void failUntil(long atNanos) {
        failingUntil = atNanos;
    }

    synchronized void slowCalls(int calls, Duration delay) {
        if (calls < 1) {
            throw new IllegalArgumentException("calls must be at least 1, was " + calls);
        }
        slowCalls = calls;
        delayNanos = positive(delay);
    }

    synchronized void slowUntil(long atNanos, Duration delay) {
        slowUntil = atNanos;
        delayNanos = positive(delay);
    }

    synchronized void clear() {
        failingCalls = 0;
        failingUntil = 0;
        slowCalls = 0;
        slowUntil = 0;
        delayNanos = 0;
    }

    /** Whether the call made at {@code now} fails. A failing call counts against the calls asked for. */
    synchronized boolean fails(long now) {
        if (failingCalls > 0) {
            failingCalls--;
            return true;
        }
        return failingUntil != 0 && failingUntil - now > 0;
    }

    /** How long the call made at {@code now} is held up, in nanoseconds of real time. */
    synchronized long delay(long now) {
        if (slowCalls > 0) {
            slowCalls--;
            return delayNanos;
        }
        return slowUntil != 0 && slowUntil - now > 0 ? delayNanos : 0;
    }

    private static long positive(Duration delay) {
        if (delay.isNegative() || delay.isZero()) {
            throw new IllegalArgumentException("delay must be positive, was " + delay);
        }
        return delay.toNanos();
    }
}
