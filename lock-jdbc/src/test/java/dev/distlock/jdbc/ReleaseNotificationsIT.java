package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockHandle;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** On PostgreSQL, a release in one registry wakes a waiter of another through LISTEN/NOTIFY, not a poll. */
class ReleaseNotificationsIT {

    private static final TestDatabase DATABASE = TestDatabase.POSTGRESQL;

    @Test
    void releaseInAnotherRegistryEndsAWaitThatNoPollWouldEnd() throws Exception {
        DATABASE.require();
        String table = TestDatabase.uniqueTableName("notify");
        String key = "notified-" + System.nanoTime();
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        try (HikariDataSource listening = DATABASE.pool("distlock-listening", 2);
                HikariDataSource releasing = DATABASE.pool("distlock-releasing", 2)) {
            try (JdbcLockRegistry holder = JdbcLockRegistry.builder(releasing)
                            .tableName(table)
                            .initializeSchema(true)
                            .build();
                    ReleaseSignals signals =
                            new PostgresDialect(new TableName(table)).releaseSignals(listening, DATABASE.hostPart());
                    ReleaseSignals.Subscription released = signals.subscribe(key)) {
                LockHandle held = holder.obtain(key).acquire();
                // An hour: only a signal ends this wait before the future's timeout below.
                Future<?> waiting = waiterThread.submit(() -> {
                    released.await(TimeUnit.HOURS.toNanos(1));
                    return null;
                });
                assertThat(signals.backoff())
                        .as("with a listener, polls are only the safety net")
                        .isEqualTo(PostgresNotifications.SAFETY_NET);
                held.close();
                waiting.get(30, TimeUnit.SECONDS);
                assertThat(waiting.isDone()).isTrue();
            } finally {
                DATABASE.dropTable(releasing, table);
            }
        } finally {
            waiterThread.shutdownNow();
        }
    }

    @Test
    void notificationForAnotherKeyDoesNotEndTheWait() throws Exception {
        DATABASE.require();
        String table = TestDatabase.uniqueTableName("notify");
        String key = "waited-" + System.nanoTime();
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        try (HikariDataSource listening = DATABASE.pool("distlock-listening", 2);
                HikariDataSource releasing = DATABASE.pool("distlock-releasing", 2)) {
            try (JdbcLockRegistry holder = JdbcLockRegistry.builder(releasing)
                            .tableName(table)
                            .initializeSchema(true)
                            .build();
                    ReleaseSignals signals =
                            new PostgresDialect(new TableName(table)).releaseSignals(listening, DATABASE.hostPart());
                    ReleaseSignals.Subscription released = signals.subscribe(key)) {
                Future<?> waiting = waiterThread.submit(() -> {
                    released.await(TimeUnit.HOURS.toNanos(1));
                    return null;
                });
                holder.obtain(key + "-other").acquire().close();
                holder.obtain(key).acquire().close();
                waiting.get(30, TimeUnit.SECONDS);
                // Ended by the second release only: a wake-up for any key would pass as well, so check
                // the first on its own.
                Future<?> again = waiterThread.submit(() -> {
                    released.await(TimeUnit.HOURS.toNanos(1));
                    return null;
                });
                holder.obtain(key + "-other").acquire().close();
                Thread.sleep(1000);
                assertThat(again.isDone())
                        .as("a release of another key does not wake this key's waiter")
                        .isFalse();
                holder.obtain(key).acquire().close();
                again.get(30, TimeUnit.SECONDS);
            } finally {
                DATABASE.dropTable(releasing, table);
            }
        } finally {
            waiterThread.shutdownNow();
        }
    }
}
