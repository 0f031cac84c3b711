package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL, a release in one registry wakes a waiter of another through LISTEN/NOTIFY, not a
 * poll; only a key a waiter found held (and so marked) is notified.
 */
class ReleaseNotificationsIT {

    private static final TestDatabase DATABASE = TestDatabase.POSTGRESQL;

    private final String table = TestDatabase.uniqueTableName("notify");
    private final String key = "notified-" + System.nanoTime();
    private final ExecutorService waiterThread = Executors.newSingleThreadExecutor();
    private HikariDataSource listening;
    private HikariDataSource releasing;
    private JdbcLockRegistry holder;
    private JdbcLockRegistry waiter;
    private ReleaseSignals signals;
    private ReleaseSignals.Subscription released;

    @BeforeEach
    void listenOnOnePoolAndReleaseThroughAnother() throws InterruptedException {
        DATABASE.require();
        listening = DATABASE.pool("distlock-listening", 2);
        releasing = DATABASE.pool("distlock-releasing", 2);
        holder = JdbcLockRegistry.builder(releasing)
                .tableName(table)
                .initializeSchema(true)
                .build();
        waiter = JdbcLockRegistry.builder(listening).tableName(table).build();
        signals = new PostgresDialect(new TableName(table)).releaseSignals(listening, DATABASE.hostPart());
        released = signals.subscribe(key);
        awaitListening();
    }

    /** The listener connects on a thread of its own; until it listens, waiters poll. */
    private void awaitListening() throws InterruptedException {
        awaitListening(signals);
    }

    /** Waits until {@code signals} listens, at most 30 s. */
    static void awaitListening(ReleaseSignals signals) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (signals.backoff() != PostgresNotifications.SAFETY_NET && System.nanoTime() - end < 0) {
            Thread.sleep(10);
        }
    }

    @AfterEach
    void closeAll() {
        waiterThread.shutdownNow();
        if (released != null) {
            released.close();
            signals.close();
            waiter.close();
            holder.close();
            DATABASE.dropTable(releasing, table);
            releasing.close();
            listening.close();
        }
    }

    /** A wait of an hour: only a signal ends it before the callers' timeouts. */
    private Future<?> waitForARelease() {
        return waiterThread.submit(() -> {
            released.await(TimeUnit.HOURS.toNanos(1));
            return null;
        });
    }

    /**
     * A waiter in another registry finds the key held, which marks its row as waited for. A zero wait fails on a
     * passing error (rule 8), such as a pooled connection found broken (seen once on a loaded machine); this test is
     * about notifications, so such a try is made again, at most twice.
     */
    private void findHeldByAWaiter() throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                assertThat(waiter.obtain(key).tryAcquire(Duration.ZERO)).isEmpty();
                return;
            } catch (DatabaseUnavailableException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    @Test
    void releaseInAnotherRegistryEndsAWaitThatNoPollWouldEnd() throws Exception {
        LockHandle held = holder.obtain(key).acquire();
        Future<?> waiting = waitForARelease();
        assertThat(signals.backoff())
                .as("with a listener, polls are only the safety net")
                .isEqualTo(PostgresNotifications.SAFETY_NET);
        findHeldByAWaiter();
        held.close();
        waiting.get(30, TimeUnit.SECONDS);
        assertThat(waiting.isDone()).isTrue();
    }

    @Test
    void releaseOfAnotherKeyDoesNotEndTheWait() throws Exception {
        Future<?> waiting = waitForARelease();
        try (LockHandle other = holder.obtain(key + "-other").acquire()) {
            assertThat(waiter.obtain(key + "-other").tryAcquire(Duration.ZERO)).isEmpty();
        }
        Thread.sleep(1000);
        assertThat(waiting.isDone())
                .as("a release of another key does not wake this key's waiter")
                .isFalse();
        LockHandle held = holder.obtain(key).acquire();
        findHeldByAWaiter();
        held.close();
        waiting.get(30, TimeUnit.SECONDS);
    }

    @Test
    void releaseOfAKeyNobodyWaitedForSendsNoNotification() throws Exception {
        Future<?> waiting = waitForARelease();
        holder.obtain(key).acquire().close();
        Thread.sleep(1000);
        assertThat(waiting.isDone())
                .as("no waiter found the key held, so its release notifies nobody")
                .isFalse();
        LockHandle held = holder.obtain(key).acquire();
        findHeldByAWaiter();
        held.close();
        waiting.get(30, TimeUnit.SECONDS);
    }
}
