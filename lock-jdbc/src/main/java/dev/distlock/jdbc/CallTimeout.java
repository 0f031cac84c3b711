package dev.distlock.jdbc;

import dev.distlock.core.spi.Deadline;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How long one call on the lock table may take. Each statement gets the time left as its JDBC
 * query timeout, which the database enforces by cancelling the statement (a statement waiting on
 * a row lock included). JDBC counts query timeouts in whole seconds, so a statement gets at least
 * one: a call with less than a second left (a zero-wait {@code tryAcquire}) may run up to one
 * second. As a backstop for a database that stops answering altogether, and so cannot even
 * answer the cancel, the connection's network timeout is the query timeout plus {@link
 * #NETWORK_GRACE}; when it runs out the driver gives up on the connection.
 *
 * @param deadline when the call should be over
 * @param cap the longest query timeout of one statement, whatever the deadline
 */
record CallTimeout(Deadline deadline, Duration cap) {

    /** Time for the database to answer a cancelled statement before the connection counts as dead. */
    static final Duration NETWORK_GRACE = Duration.ofSeconds(1);

    private static final long MIN_SECONDS = 1;
    private static final long MAX_SECONDS = 3600;

    /** A call that ends at {@code deadline}, each statement waiting at most {@code cap}. */
    static CallTimeout until(Deadline deadline, Duration cap) {
        return new CallTimeout(deadline, cap);
    }

    /** A call that may take {@code budget} from now. */
    static CallTimeout of(Duration budget) {
        return new CallTimeout(Deadline.after(budget), budget);
    }

    /** The query timeout for a statement starting now: the time left, rounded up to whole seconds, at least one. */
    int querySeconds() {
        long nanos = Math.min(deadline.remainingNanos(), cap.toNanos());
        long seconds = TimeUnit.NANOSECONDS.toSeconds(nanos + 999_999_999);
        return (int) Math.max(MIN_SECONDS, Math.min(MAX_SECONDS, seconds));
    }

    /** The network timeout for a connection whose statements start now. */
    int networkMillis() {
        return (int) (TimeUnit.SECONDS.toMillis(querySeconds()) + NETWORK_GRACE.toMillis());
    }
}
