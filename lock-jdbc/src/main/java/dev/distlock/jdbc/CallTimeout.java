package dev.distlock.jdbc;

import dev.distlock.core.spi.Deadline;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How long one call on the lock table may take, in three layers. A lock statement that waits on
 * a row lock is ended by the database at {@link #serverWaitMillis()} (the time left, at least
 * {@link #MIN_SERVER_WAIT}), where the dialect can say so in milliseconds; elsewhere by the JDBC
 * query timeout in whole seconds ({@link #querySeconds()}). A database that stops answering
 * altogether is given up by the connection's network timeout, contract 8's {@link #OVERRUN} after
 * the call's deadline (at least {@link #SLACK} after the server's own bound), when the driver abandons
 * the connection.
 *
 * <p>Waiting for a pooled connection is bounded apart ({@link #connectionWaitMillis()}): by the
 * time left, but at least {@code connectionFloor}, so that a busy machine's scheduling delay of a
 * few hundred milliseconds is not taken for an exhausted pool.
 *
 * @param deadline when the call should be over
 * @param cap the longest any one statement may take, whatever the deadline
 * @param connectionFloor the least time the call waits for a pooled connection
 */
record CallTimeout(Deadline deadline, Duration cap, Duration connectionFloor) {

    /** The shortest wait a database is asked to bound: room for one statement of a zero-wait attempt. */
    static final Duration MIN_SERVER_WAIT = Duration.ofMillis(100);

    /** Time for the database's answer (or the answer to its own timeout) to arrive before the connection counts as dead. */
    static final Duration SLACK = Duration.ofMillis(150);

    /** Contract 8's bound: how far past its deadline (or its statement cap) a call may run. */
    static final Duration OVERRUN = Duration.ofMillis(250);

    /** The least wait for a pooled connection of a call with a wait time: all of contract 8's slack. */
    static final Duration CONNECTION_FLOOR = OVERRUN;

    private static final long MAX_MILLIS = TimeUnit.HOURS.toMillis(1);

    /** A call that ends at {@code deadline}, each statement taking at most {@code cap}. */
    static CallTimeout until(Deadline deadline, Duration cap) {
        return new CallTimeout(deadline, cap, CONNECTION_FLOOR);
    }

    /** A call that may take {@code budget} from now. */
    static CallTimeout of(Duration budget) {
        return new CallTimeout(Deadline.after(budget), budget, CONNECTION_FLOOR);
    }

    /** This call, waiting for a pooled connection at least {@code floor}. */
    CallTimeout withConnectionFloor(Duration floor) {
        return new CallTimeout(deadline, cap, floor);
    }

    /** How long the call may wait for a pooled connection from now: the time left, at least {@link #connectionFloor()}. */
    long connectionWaitMillis() {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline.remainingNanos() + 999_999);
        return Math.max(connectionFloor.toMillis(), Math.min(MAX_MILLIS, left));
    }

    /** How long the database may let a statement starting now wait: the time left, at least {@link #MIN_SERVER_WAIT}. */
    long serverWaitMillis() {
        long millis = TimeUnit.NANOSECONDS.toMillis(Math.min(deadline.remainingNanos(), cap.toNanos()) + 999_999);
        return Math.max(MIN_SERVER_WAIT.toMillis(), Math.min(MAX_MILLIS, millis));
    }

    /** The JDBC query timeout for a statement starting now: {@link #serverWaitMillis()} rounded up to whole seconds. */
    int querySeconds() {
        return (int) TimeUnit.MILLISECONDS.toSeconds(serverWaitMillis() + 999);
    }

    /**
     * A JDBC query timeout that only fires after {@link #networkMillis()}: for a database that ends row lock waits
     * itself in milliseconds, so that a silent one is given up on by the network timeout and never by a cancel sent
     * over a second connection, which the statement would wait for (PostgreSQL: up to {@code cancelSignalTimeout}).
     */
    int querySecondsPastNetwork() {
        return networkMillis() / 1000 + 1;
    }

    /**
     * The network timeout for a connection whose statement starts now: the statement's own bound (the time left, or
     * the cap) plus contract 8's {@link #OVERRUN}, and at least {@link #serverWaitMillis()} plus {@link #SLACK}. So a
     * live database's answer to its own timeout, which a busy machine can delay by more than {@link #SLACK}, has the
     * whole overrun to arrive, and a silent one is given up on no later than the overrun after the deadline.
     */
    int networkMillis() {
        long bound = TimeUnit.NANOSECONDS.toMillis(Math.max(0, Math.min(deadline.remainingNanos(), cap.toNanos())));
        return (int) Math.max(serverWaitMillis() + SLACK.toMillis(), Math.min(MAX_MILLIS, bound) + OVERRUN.toMillis());
    }
}
