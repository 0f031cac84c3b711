package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How long {@link ZooKeeperCalls}' answers take lately, and from that how far past its wait time
 * a caller waits for the answers to calls it started.
 */
final class AnswerTimes {

    /** How long a slow answer counts towards {@link #overrunNanos()}. */
    private static final long SLOW_ANSWER_MEMORY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final long baseOverrunNanos;
    private final long maxOverrunNanos;
    private volatile long slowestAnswerNanos;
    private volatile long slowestAnswerAt;

    AnswerTimes(Duration baseOverrun, Duration maxOverrun) {
        this.baseOverrunNanos = baseOverrun.toNanos();
        this.maxOverrunNanos = maxOverrun.toNanos();
    }

    /**
     * The base overrun plus the slowest answer of the last ten seconds. A server that went silent
     * after answering quickly (a partition) is given up on after about the base overrun; one that
     * has been answering slowly all along (an overloaded machine) is not mistaken for a silent one.
     */
    long overrunNanos() {
        long slowest = System.nanoTime() - slowestAnswerAt > SLOW_ANSWER_MEMORY_NANOS ? 0 : slowestAnswerNanos;
        return Math.min(baseOverrunNanos + slowest, maxOverrunNanos);
    }

    /** Keeps the slowest answer until a slower one comes or it is older than the memory (races only blur it). */
    void record(long tookNanos) {
        long now = System.nanoTime();
        if (tookNanos >= slowestAnswerNanos || now - slowestAnswerAt > SLOW_ANSWER_MEMORY_NANOS) {
            slowestAnswerNanos = tookNanos;
            slowestAnswerAt = now;
        }
    }
}
