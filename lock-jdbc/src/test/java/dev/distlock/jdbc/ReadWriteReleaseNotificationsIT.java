package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LockMode;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL, read/write releases wake their waiters through LISTEN/NOTIFY: a write release wakes the readers and
 * writers of the key, the last read release before a waiting writer wakes the writers, and a read release that leaves
 * other readers holding wakes nobody (no writer could go in yet).
 */
class ReadWriteReleaseNotificationsIT {

    private static final TestDatabase DATABASE = TestDatabase.POSTGRESQL;
    private static final RegistryOptions NO_PREFIX = new RegistryOptions(Duration.ofSeconds(30), "");

    private final String table = TestDatabase.uniqueTableName("rwnotify");
    private final String key = "rw-notified-" + System.nanoTime();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private HikariDataSource listening;
    private HikariDataSource releasing;
    private JdbcLockRegistry holder;
    private JdbcLockRegistry waiter;
    private ReleaseSignals signals;
    private ReleaseSignals.Subscription readers;
    private ReleaseSignals.Subscription writers;

    @BeforeEach
    void listenOnOnePoolAndReleaseThroughAnother() throws InterruptedException {
        DATABASE.require();
        listening = DATABASE.pool("distlock-rw-listening", 2);
        releasing = DATABASE.pool("distlock-rw-releasing", 4);
        holder = JdbcLockRegistry.builder(releasing)
                .tableName(table)
                .initializeSchema(true)
                .options(NO_PREFIX)
                .build();
        waiter = JdbcLockRegistry.builder(releasing)
                .tableName(table)
                .options(NO_PREFIX)
                .build();
        signals = new PostgresDialect(new TableName(table)).releaseSignals(listening, DATABASE.hostPart());
        readers = signals.subscribe(ReadWriteStatements.signalKey(key, LockMode.READ));
        writers = signals.subscribe(ReadWriteStatements.signalKey(key, LockMode.WRITE));
        ReleaseNotificationsIT.awaitListening(signals);
        assertThat(signals.backoff()).as("the test's listener listens").isEqualTo(PostgresNotifications.SAFETY_NET);
    }

    @AfterEach
    void closeAll() {
        threads.shutdownNow();
        if (signals != null) {
            readers.close();
            writers.close();
            signals.close();
            waiter.close();
            holder.close();
            DATABASE.dropTable(releasing, table);
            releasing.close();
            listening.close();
        }
    }

    /** A wait of an hour: only a signal ends it within the test's timeouts. */
    private Future<?> woken(ReleaseSignals.Subscription subscription) {
        return threads.submit(() -> {
            subscription.await(TimeUnit.HOURS.toNanos(1));
            return null;
        });
    }

    @Test
    void aWriteReleaseWakesReadersAndWriters() throws Exception {
        LockHandle written = holder.readWriteLock(key).writeLock().acquire();
        Future<?> reader = woken(readers);
        Future<?> writer = woken(writers);
        written.close();
        reader.get(30, TimeUnit.SECONDS);
        writer.get(30, TimeUnit.SECONDS);
    }

    @Test
    void theLastReadReleaseBeforeAWaitingWriterWakesTheWritersOnly() throws Exception {
        // Two readers of one registry: asynchronous holds belong to their handles, so they do not join.
        LockHandle first = readHold();
        LockHandle second = readHold();
        // A writer of the other registry waits, which records its intent.
        Future<Boolean> writing = threads.submit(() -> {
            try (LockHandle written = waiter.readWriteLock(key)
                    .writeLock()
                    .tryAcquire(Duration.ofSeconds(30))
                    .orElseThrow()) {
                return written.isValid();
            }
        });
        awaitIntent();
        Future<?> writer = woken(writers);
        Future<?> reader = woken(readers);

        first.close();
        Thread.sleep(500);
        assertThat(writer.isDone())
                .as("a reader still holds: the writer is not woken")
                .isFalse();

        second.close();
        writer.get(30, TimeUnit.SECONDS);
        assertThat(writing.get(30, TimeUnit.SECONDS)).isTrue();
        reader.get(30, TimeUnit.SECONDS); // readers are woken when the writer releases
    }

    private LockHandle readHold() throws Exception {
        return holder.readWriteLock(key)
                .readLock()
                .acquireAsync(Duration.ofSeconds(30))
                .get(30, TimeUnit.SECONDS)
                .orElseThrow();
    }

    private void awaitIntent() throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() - end < 0) {
            try (var connection = releasing.getConnection();
                    var query = connection.prepareStatement(
                            "SELECT 1 FROM " + table + "_rw WHERE lock_key = ? AND mode = 'q'")) {
                query.setString(1, key);
                try (var row = query.executeQuery()) {
                    if (row.next()) {
                        return;
                    }
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the writer never recorded its intent");
    }
}
