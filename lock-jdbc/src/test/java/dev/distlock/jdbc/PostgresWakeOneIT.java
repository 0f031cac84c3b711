package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockHandle;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * On PostgreSQL, a plain lock's release wakes the first registry in the key's line, on that
 * registry's own channel, instead of every registry: read off the server by an observer connection
 * that listens on the table's channel and on every registry's own channel.
 */
class PostgresWakeOneIT {

    private static final TestDatabase DATABASE = TestDatabase.POSTGRESQL;
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final String table = TestDatabase.uniqueTableName("wakeone");
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final List<JdbcLockRegistry> registries = new ArrayList<>();
    /** Notifications the observer heard: channel and key. */
    private final Queue<String[]> notifications = new ConcurrentLinkedQueue<>();

    private ExecutorService threads;
    private Connection observer;
    /** Reads the table, beside the observer's connection, which waits for notifications. */
    private Connection reader;

    private Thread observing;
    private volatile boolean stop;

    @BeforeEach
    void observe() throws SQLException {
        DATABASE.require();
        threads = Executors.newCachedThreadPool();
        observer = DriverManager.getConnection(DATABASE.url, DATABASE.user, DATABASE.password);
        reader = DriverManager.getConnection(DATABASE.url, DATABASE.user, DATABASE.password);
        listenTo(PostgresDialect.channel(new TableName(table)));
    }

    @AfterEach
    void closeAll() throws Exception {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        stop = true;
        if (observing != null) {
            observing.join(5_000);
        }
        registries.forEach(JdbcLockRegistry::close);
        if (!pools.isEmpty()) {
            DATABASE.dropTable(pools.get(0), table);
        }
        pools.forEach(HikariDataSource::close);
        if (observer != null) {
            observer.close();
            reader.close();
        }
    }

    @Test
    void aReleaseWakesOneWaitingRegistryOnItsOwnChannel() throws Exception {
        JdbcLockRegistry first = registry();
        List<JdbcLockRegistry> waiting = new ArrayList<>();
        Set<String> ownChannels = new HashSet<>();
        for (int i = 0; i < 6; i++) {
            JdbcLockRegistry registry = registry();
            ownChannels.add(listening(registry, first));
            waiting.add(registry);
        }
        startObserving();
        String key = "wake-one";
        LockHandle held = first.obtain(key).acquire();
        CountDownLatch allTook = new CountDownLatch(waiting.size());
        List<Future<Long>> tokens = new ArrayList<>();
        for (JdbcLockRegistry registry : waiting) {
            tokens.add(threads.submit(() -> {
                try (LockHandle handle = registry.obtain(key).tryAcquire(WAIT).orElseThrow()) {
                    Thread.sleep(5);
                    allTook.countDown();
                    return handle.token().value();
                }
            }));
        }
        awaitLine(key, waiting.size());
        held.close();
        assertThat(allTook.await(WAIT.toSeconds() * 2, TimeUnit.SECONDS)).isTrue();
        Set<Long> distinct = new HashSet<>();
        for (Future<Long> token : tokens) {
            distinct.add(token.get(5, TimeUnit.SECONDS));
        }
        assertThat(distinct).hasSize(waiting.size());

        // One release by the first holder, then one by each waiter but the last, which nobody waits behind.
        int handOvers = waiting.size();
        List<String> channels = awaitNotificationsAbout(key, handOvers);
        assertThat(channels)
                .as("releases notified to every registry")
                .doesNotContain(PostgresDialect.channel(new TableName(table)));
        assertThat(channels)
                .as("wake-ups, each to one registry, one per hand-over")
                .hasSize(handOvers)
                .allMatch(ownChannels::contains);
        assertThat(rows(key))
                .as("the row is gone with the last holder and its line")
                .isZero();
    }

    @Test
    void aWakeUpReachingARegistryThatNoLongerWaitsGoesOnToTheNextInLine() throws Exception {
        JdbcLockRegistry holder = registry();
        JdbcLockRegistry gone = registry();
        String goneChannel = listening(gone, holder);
        // Next in line stands a channel that only the observer listens to: no waiter behind it
        // polls, so only a wake-up passed on reaches it.
        String nextChannel = PostgresNotifications.WAKE_CHANNEL_PREFIX + "next" + System.nanoTime();
        listenTo(nextChannel);
        startObserving();

        String key = "passed-on";
        LockHandle held = holder.obtain(key).acquire();
        // First in line, as a registry whose waiter gave up just as the release came.
        execute("UPDATE " + table + " SET wait_line = ARRAY['" + goneChannel + "', '" + nextChannel
                + "'], line_until = clock_timestamp() + INTERVAL '1 minute' WHERE lock_key = '" + key + "'");
        held.close();

        assertThat(awaitNotificationsAbout(key, 2))
                .as("the release woke the first in line, which passed the wake-up on")
                .containsExactly(goneChannel, nextChannel);
        assertThat(rows(key)).as("the free row, once its line is empty").isZero();
    }

    @Test
    void aWaiterThatGivesUpLeavesTheLine() throws Exception {
        JdbcLockRegistry holder = registry();
        JdbcLockRegistry waiter = registry();
        listening(waiter, holder);
        String key = "gave-up";
        try (LockHandle held = holder.obtain(key).acquire()) {
            assertThat(waiter.obtain(key).tryAcquire(Duration.ofMillis(600))).isEmpty();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (line(key).length > 0 && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertThat(line(key))
                    .as("the key's line after its only waiter gave up")
                    .isEmpty();
        }
        assertThat(rows(key)).isZero();
    }

    @Test
    void aTableOfAnEarlierVersionWakesEveryWaitingRegistry() throws Exception {
        // The same hand-over on a table without the line: the observer hears the broadcast, so the
        // first test would catch releases that still notify everyone.
        JdbcLockRegistry creator = registry();
        creator.obtain("create").acquire().close();
        execute("ALTER TABLE " + table + " DROP COLUMN wait_line, DROP COLUMN line_until");
        JdbcLockRegistry first = registry();
        JdbcLockRegistry second = registry();
        startObserving();
        String key = "broadcast";
        LockHandle held = first.obtain(key).acquire();
        Future<Optional<LockHandle>> waited =
                threads.submit(() -> second.obtain(key).tryAcquire(WAIT));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!waitingMarked(key) && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        held.close();
        Optional<LockHandle> taken = waited.get(WAIT.toSeconds() + 5, TimeUnit.SECONDS);
        assertThat(taken).isPresent();
        taken.get().close();
        assertThat(awaitNotificationsAbout(key, 1)).containsExactly(PostgresDialect.channel(new TableName(table)));
    }

    @Test
    void theListeningConnectionGoesBackToTheApplicationsPoolAsItCame() throws Exception {
        // The application's own pool for the listening connection: one connection, so the test gets that one back.
        HikariDataSource listenerPool = DATABASE.pool("distlock-wake-one-listener", 1);
        pools.add(listenerPool);
        HikariDataSource pool = DATABASE.pool("distlock-wake-one-own", 2);
        pools.add(pool);
        JdbcLockRegistry registry = JdbcLockRegistry.builder(pool)
                .tableName(table)
                .initializeSchema(true)
                .notificationDataSource(listenerPool)
                .build();
        String channel = listening(registry, registry());
        registry.close();
        try (Connection returned = listenerPool.getConnection();
                Statement statement = returned.createStatement();
                ResultSet name = statement.executeQuery("SHOW application_name")) {
            name.next();
            assertThat(name.getString(1))
                    .as("its name after the registry closed")
                    .isNotEqualTo(channel);
        }
    }

    private JdbcLockRegistry registry() {
        HikariDataSource pool = DATABASE.pool("distlock-wake-one-" + pools.size(), 2);
        pools.add(pool);
        JdbcLockRegistry registry = JdbcLockRegistry.builder(pool)
                .tableName(table)
                .initializeSchema(true)
                .build();
        registries.add(registry);
        return registry;
    }

    /**
     * Makes {@code registry} wait once, behind {@code holder}, until it takes a place in a line
     * (which it does only once it listens); returns its own channel, which the observer listens to.
     */
    private String listening(JdbcLockRegistry registry, JdbcLockRegistry holder) throws Exception {
        String key = "listening-" + System.nanoTime();
        String channel;
        Future<Optional<LockHandle>> waited;
        try (LockHandle held = holder.obtain(key).acquire()) {
            waited = threads.submit(() -> registry.obtain(key).tryAcquire(Duration.ofSeconds(40)));
            awaitLine(key, 1, Duration.ofSeconds(30));
            channel = line(key)[0];
        }
        waited.get(30, TimeUnit.SECONDS).orElseThrow().close();
        assertThat(channel).startsWith(PostgresNotifications.WAKE_CHANNEL_PREFIX);
        listenTo(channel);
        return channel;
    }

    private void listenTo(String channel) throws SQLException {
        try (Statement statement = observer.createStatement()) {
            statement.execute("LISTEN \"" + channel + "\"");
        }
    }

    private void startObserving() {
        observing = new Thread(() -> {
            try {
                PGConnection connection = observer.unwrap(PGConnection.class);
                while (!stop) {
                    PGNotification[] received = connection.getNotifications(100);
                    if (received != null) {
                        for (PGNotification notification : received) {
                            notifications.add(new String[] {notification.getName(), notification.getParameter()});
                        }
                    }
                }
            } catch (SQLException e) {
                if (!stop) {
                    throw new IllegalStateException(e);
                }
            }
        });
        observing.setDaemon(true);
        observing.start();
    }

    /** The channels of the notifications about {@code key}, once there are {@code count} (at most 10 s), and 300 ms more. */
    private List<String> awaitNotificationsAbout(String key, int count) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (about(key).size() < count && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        Thread.sleep(300); // any that would come on top
        return about(key);
    }

    private List<String> about(String key) {
        List<String> channels = new ArrayList<>();
        for (String[] notification : notifications) {
            if (notification[1].equals(key)) {
                channels.add(notification[0]);
            }
        }
        return channels;
    }

    private void awaitLine(String key, int registries) throws Exception {
        awaitLine(key, registries, WAIT);
    }

    private void awaitLine(String key, int registries, Duration within) throws Exception {
        long until = System.nanoTime() + within.toNanos();
        while (line(key).length < registries) {
            assertThat(System.nanoTime()).as("registries in line").isLessThan(until);
            Thread.sleep(5);
        }
    }

    private String[] line(String key) throws SQLException {
        try (PreparedStatement statement =
                reader.prepareStatement("SELECT wait_line FROM " + table + " WHERE lock_key = ?")) {
            statement.setString(1, key);
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    return new String[0];
                }
                Array line = rs.getArray(1);
                return (String[]) line.getArray();
            }
        }
    }

    private boolean waitingMarked(String key) throws SQLException {
        try (PreparedStatement statement =
                reader.prepareStatement("SELECT waiting FROM " + table + " WHERE lock_key = ?")) {
            statement.setString(1, key);
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private long rows(String key) throws SQLException {
        try (PreparedStatement statement =
                reader.prepareStatement("SELECT count(*) FROM " + table + " WHERE lock_key = ?")) {
            statement.setString(1, key);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private void execute(String sql) throws SQLException {
        try (Statement statement = reader.createStatement()) {
            statement.execute(sql);
        }
    }
}
