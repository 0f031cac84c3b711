package dev.distlock.core;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings every registry shares, whatever its backend.
 *
 * @param leaseTime the lease of holds renewed by the watchdog (renewed every third of it)
 * @param keyPrefix prepended to every key, to keep applications that share a backend apart
 * @param applicationName names this application in the holder description stored with each
 *     lock on the server (with host, pid and thread), so an operator can tell who holds a key
 * @param writerGrace how long a waiting writer of a read/write lock lets new readers in before they
 *     queue behind it ({@code docs/read-write-locks.md}). Zero queues them behind it at once. Null takes the
 *     backend's default ({@link #writerGraceOr}).
 * @param answerBudget how long a call may wait for the server's answer beyond its wait time (contract 8). A zero
 *     wait gets all of it for the server's answer, and no call outlives its wait time plus this, a silent server
 *     included.
 */
public record RegistryOptions(
        Duration leaseTime, String keyPrefix, String applicationName, Duration writerGrace, Duration answerBudget) {

    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

    /**
     * The writer grace of backends whose waiting writer holds readers back with an intent (Redis, JDBC, memory). It is
     * long enough that readers which loop on a key are not stopped at every write, and short against any lease.
     * Backends whose waiting writer holds readers back with its place in the key's queue (ZooKeeper, etcd) default to
     * zero.
     */
    public static final Duration DEFAULT_WRITER_GRACE = Duration.ofMillis(10);

    /**
     * The answer budget unless set. A live server on a loaded 2-core machine met it with room to spare in the
     * measurements of contract 8, and it is well under Redisson's 3 s command timeout.
     */
    public static final Duration DEFAULT_ANSWER_BUDGET = Duration.ofSeconds(1);

    public RegistryOptions {
        Objects.requireNonNull(leaseTime, "leaseTime");
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Objects.requireNonNull(applicationName, "applicationName");
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException("leaseTime must be positive, was " + leaseTime);
        }
        if (writerGrace != null && writerGrace.isNegative()) {
            throw new IllegalArgumentException("writerGrace must be zero or positive, was " + writerGrace);
        }
        Objects.requireNonNull(answerBudget, "answerBudget");
        if (answerBudget.isNegative() || answerBudget.isZero()) {
            throw new IllegalArgumentException("answerBudget must be positive, was " + DurationText.format(answerBudget)
                    + "; it is how long a call may wait for the server's answer beyond its wait time (contract 8)");
        }
    }

    public RegistryOptions(Duration leaseTime, String keyPrefix, String applicationName, Duration writerGrace) {
        this(leaseTime, keyPrefix, applicationName, writerGrace, DEFAULT_ANSWER_BUDGET);
    }

    public RegistryOptions(Duration leaseTime, String keyPrefix, String applicationName) {
        this(leaseTime, keyPrefix, applicationName, null);
    }

    public RegistryOptions(Duration leaseTime, String keyPrefix) {
        this(leaseTime, keyPrefix, "");
    }

    public static RegistryOptions defaults() {
        return new RegistryOptions(DEFAULT_LEASE_TIME, "", "");
    }

    public RegistryOptions withLeaseTime(Duration leaseTime) {
        return new RegistryOptions(leaseTime, keyPrefix, applicationName, writerGrace, answerBudget);
    }

    public RegistryOptions withKeyPrefix(String keyPrefix) {
        return new RegistryOptions(leaseTime, keyPrefix, applicationName, writerGrace, answerBudget);
    }

    public RegistryOptions withApplicationName(String applicationName) {
        return new RegistryOptions(leaseTime, keyPrefix, applicationName, writerGrace, answerBudget);
    }

    public RegistryOptions withWriterGrace(Duration writerGrace) {
        return new RegistryOptions(
                leaseTime,
                keyPrefix,
                applicationName,
                Objects.requireNonNull(writerGrace, "writerGrace"),
                answerBudget);
    }

    /** The same options with {@code answerBudget} as the answer budget (contract 8). */
    public RegistryOptions withAnswerBudget(Duration answerBudget) {
        return new RegistryOptions(leaseTime, keyPrefix, applicationName, writerGrace, answerBudget);
    }

    /** The writer grace that was set, or {@code backendDefault} when none was. */
    public Duration writerGraceOr(Duration backendDefault) {
        return writerGrace != null ? writerGrace : backendDefault;
    }
}
