package dev.distlock.jdbc;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.Deadline;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How long one call on the lock table may take. The database ends a row lock wait at {@link
 * #serverWaitMillis()}, the JDBC query timeout ends a statement ({@link #querySeconds()}), and the
 * network timeout gives up a database that stopped answering ({@link #networkMillis()}). Waiting
 * for a pooled connection is bounded apart ({@link #connectionWaitMillis()}).
 *
 * @param deadline when the call should be over
 * @param cap the longest any one statement may take, whatever the deadline
 * @param connectionFloor the least time the call waits for a pooled connection
 * @param overrun how far past its deadline (or its statement cap) the call may run, the answer budget
 */
record CallTimeout(Deadline deadline, Duration cap, Duration connectionFloor, Duration overrun) {

    /** The shortest wait a database is asked to bound, room for one statement of a zero-wait attempt. */
    static final Duration MIN_SERVER_WAIT = Duration.ofMillis(100);

    /** Time for the database's answer (or the answer to its own timeout) to arrive before the connection counts as dead. */
    static final Duration SLACK = Duration.ofMillis(150);

    /** The overrun of a call that no registry's answer budget bounds (background and operator calls). */
    static final Duration DEFAULT_OVERRUN = RegistryOptions.DEFAULT_ANSWER_BUDGET;

    private static final long MAX_MILLIS = TimeUnit.HOURS.toMillis(1);

    /** A call that ends at {@code deadline}, each statement taking at most {@code cap}. */
    static CallTimeout until(Deadline deadline, Duration cap) {
        return new CallTimeout(deadline, cap, DEFAULT_OVERRUN, DEFAULT_OVERRUN);
    }

    /** A call that may take {@code budget} from now. */
    static CallTimeout of(Duration budget) {
        return new CallTimeout(Deadline.after(budget), budget, DEFAULT_OVERRUN, DEFAULT_OVERRUN);
    }

    /** This call, waiting for a pooled connection at least {@code floor}. */
    CallTimeout withConnectionFloor(Duration floor) {
        return new CallTimeout(deadline, cap, floor, overrun);
    }

    /**
     * This call, running at most {@code answerBudget} past its deadline, and waiting that long at least for a pooled
     * connection, so that a zero wait has the whole budget for its answer (contract 8).
     */
    CallTimeout withAnswerBudget(Duration answerBudget) {
        return new CallTimeout(deadline, cap, answerBudget, answerBudget);
    }

    /** How long the call may wait for a pooled connection from now, at least {@link #connectionFloor()}. */
    long connectionWaitMillis() {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline.remainingNanos() + 999_999);
        return Math.max(connectionFloor.toMillis(), Math.min(MAX_MILLIS, left));
    }

    /** How long the database may let a statement starting now wait, at least {@link #MIN_SERVER_WAIT}. */
    long serverWaitMillis() {
        long millis = TimeUnit.NANOSECONDS.toMillis(Math.min(deadline.remainingNanos(), cap.toNanos()) + 999_999);
        return Math.max(MIN_SERVER_WAIT.toMillis(), Math.min(MAX_MILLIS, millis));
    }

    /** The JDBC query timeout for a statement starting now, {@link #serverWaitMillis()} in whole seconds. */
    int querySeconds() {
        return (int) TimeUnit.MILLISECONDS.toSeconds(serverWaitMillis() + 999);
    }

    /**
     * A JDBC query timeout at least a second after {@link #networkMillis()}, for a database that ends
     * row lock waits itself. A silent one is then given up by the network timeout, never by a cancel.
     */
    int querySecondsPastNetwork() {
        return (networkMillis() + 1999) / 1000;
    }

    /**
     * The network timeout for a connection whose statement starts now. It is the statement's own
     * bound plus the {@code overrun}, and at least {@link #serverWaitMillis()} plus {@link #SLACK}.
     */
    int networkMillis() {
        long bound = TimeUnit.NANOSECONDS.toMillis(Math.max(0, Math.min(deadline.remainingNanos(), cap.toNanos())));
        return (int) Math.max(serverWaitMillis() + SLACK.toMillis(), Math.min(MAX_MILLIS, bound) + overrun.toMillis());
    }
}
