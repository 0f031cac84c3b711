package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockHandle;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A plain lock's release wakes the first registry in the key's line, on that registry's own
 * channel, instead of every registry: read off the server by a pattern subscriber that sees every
 * message the library publishes.
 */
class RedisWakeOneIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static RedisServers servers;
    private static ManagedProcess server;
    private static LettuceConnectionFactory factory;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;
    private static StatefulRedisPubSubConnection<String, String> observer;
    /** Every message published on the library's channels: channel and lock. */
    private static final Queue<String[]> messages = new ConcurrentLinkedQueue<>();

    private final List<RedisLockRegistry> registries = new ArrayList<>();
    private ExecutorService threads;

    @BeforeAll
    static void startServer() {
        servers = new RedisServers();
        server = servers.start();
        factory = servers.factory(server);
        client = RedisClient.create(RedisURI.create("127.0.0.1", server.port()));
        connection = client.connect();
        redis = connection.sync();
        observer = client.connectPubSub();
        observer.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String pattern, String channel, String message) {
                messages.add(new String[] {channel, message});
            }
        });
        observer.sync().psubscribe("distlock:*");
    }

    @AfterAll
    static void stopServer() {
        if (observer != null) {
            observer.close();
            connection.close();
            client.shutdown();
        }
        if (servers != null) {
            servers.close();
        }
    }

    @BeforeEach
    void startThreads() {
        threads = Executors.newCachedThreadPool();
        messages.clear();
    }

    @AfterEach
    void closeRegistries() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        registries.forEach(RedisLockRegistry::close);
    }

    @Test
    void aReleaseWakesOneWaitingRegistryOnItsOwnChannel() throws Exception {
        RedisLockRegistry first = listening(registry(RedisLockBackend.RECHECK));
        List<RedisLockRegistry> waiting = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            // Looks again only after an hour: a waiter's own look (every 250 ms by default) may take the key
            // ahead of the registry a release woke, which then joins the line again and is woken a second time.
            // On a loaded machine six hand-overs outlast 250 ms; here only wake-ups hand the key on.
            waiting.add(listening(registry(Duration.ofHours(1))));
        }
        String key = "wake-one";
        LockHandle held = first.obtain(key).acquire();
        CountDownLatch allTook = new CountDownLatch(waiting.size());
        List<Future<Long>> tokens = new ArrayList<>();
        for (RedisLockRegistry registry : waiting) {
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
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (channelsFor(key).size() < handOvers && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        List<String> channels = channelsFor(key);
        assertThat(channels).as("releases published to every registry").doesNotContain(LockKey.RELEASE_CHANNEL);
        assertThat(channels)
                .as("wake-ups, each to one registry, one per hand-over")
                .hasSize(handOvers)
                .allMatch(channel -> channel.startsWith(LockKey.WAKE_CHANNEL_PREFIX));
        assertThat(redis.exists(line(key)))
                .as("the line is gone with its last waiter")
                .isZero();
    }

    @Test
    void aWakeUpReachingARegistryThatNoLongerWaitsGoesOnToTheNextInLine() throws Exception {
        RedisLockRegistry holder = registry(RedisLockBackend.RECHECK);
        // Looks again only after an hour: only a wake-up can end its wait in time.
        RedisLockRegistry next = listening(registry(Duration.ofHours(1)));
        List<String> before = redis.pubsubChannels(LockKey.WAKE_CHANNEL_PREFIX + "*");
        RedisLockRegistry gone = listening(registry(RedisLockBackend.RECHECK));
        List<String> after = new ArrayList<>(redis.pubsubChannels(LockKey.WAKE_CHANNEL_PREFIX + "*"));
        after.removeAll(before);
        assertThat(after).as("the new registry's own channel").hasSize(1);
        String goneChannel = after.get(0);

        // Anything else that wakes every waiter of a registry (a connection event of its client, on a loaded
        // machine) lets the waiter take the key before the wake-up is passed on, which then has nothing to do:
        // such a round shows one message, and the scenario is run again on a new key, up to three times.
        List<String> woken = List.of();
        for (int round = 1; round <= 3 && woken.size() != 2; round++) {
            String key = "passed-on-" + round;
            LockHandle held = holder.obtain(key).acquire();
            Future<Optional<LockHandle>> waited =
                    threads.submit(() -> next.obtain(key).tryAcquire(WAIT));
            awaitLine(key, 1);
            // First in line, as a registry whose waiter gave up just as the release came.
            redis.zadd(line(key), 0, goneChannel);
            held.close();

            Optional<LockHandle> taken = waited.get(WAIT.toSeconds() + 5, TimeUnit.SECONDS);
            assertThat(taken)
                    .as("the waiter behind the registry that no longer waited")
                    .isPresent();
            taken.get().close();
            woken = awaitMessagesAbout(LockKey.of(key).name(), 2);
            assertThat(woken)
                    .as("the release woke the first in line, not every registry")
                    .startsWith(goneChannel);
        }
        assertThat(woken)
                .as("the release woke the first in line, which passed the wake-up on")
                .hasSize(2);
    }

    @Test
    void aReadWriteReleaseWakesOnlyTheRegistriesThatWaitForThatKey() throws Exception {
        RedisLockRegistry writer = registry(RedisLockBackend.RECHECK);
        RedisLockRegistry readers = listening(registry(RedisLockBackend.RECHECK));
        // Waits too, but not for this key: a release of this key has nothing to tell it.
        listening(registry(RedisLockBackend.RECHECK));
        String key = "rw-wake";
        String message = LockKey.of(key).name() + ":rw";
        LockHandle written = writer.readWriteLock(key).writeLock().acquire();
        List<Future<Optional<LockHandle>>> reads = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            reads.add(threads.submit(() -> readers.readWriteLock(key).readLock().tryAcquire(WAIT)));
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (redis.scard(message + ":line") < 1) {
            assertThat(System.nanoTime()).as("the readers' registry in line").isLessThan(until);
            Thread.sleep(5);
        }
        written.close();
        for (Future<Optional<LockHandle>> read : reads) {
            Optional<LockHandle> handle = read.get(WAIT.toSeconds() + 5, TimeUnit.SECONDS);
            assertThat(handle).as("a reader behind the writer").isPresent();
            handle.get().close();
        }
        awaitMessagesAbout(message, 1);
        Thread.sleep(100); // a second message would have been published with the first
        assertThat(messagesAbout(message))
                .as("the write release reached the readers' registry alone, on its own channel")
                .hasSize(1)
                .allMatch(channel -> channel.startsWith(LockKey.WAKE_CHANNEL_PREFIX));
    }

    @Test
    void aWaiterThatGivesUpLeavesTheLine() throws Exception {
        RedisLockRegistry holder = registry(RedisLockBackend.RECHECK);
        RedisLockRegistry waiter = listening(registry(RedisLockBackend.RECHECK));
        String key = "gives-up";
        try (LockHandle held = holder.obtain(key).acquire()) {
            assertThat(waiter.obtain(key).tryAcquire(Duration.ofMillis(300))).isEmpty();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (redis.exists(line(key)) > 0 && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertThat(redis.exists(line(key)))
                    .as("the line after its only waiter gave up")
                    .isZero();
        }
    }

    private RedisLockRegistry registry(Duration recheck) {
        RedisLockRegistry registry = RedisLockRegistry.builder(factory)
                .leaseTime(Duration.ofSeconds(30))
                .recheck(recheck)
                .build();
        registries.add(registry);
        return registry;
    }

    /** The registry after one wait, which opens its subscription: from then on its waiters take places in lines. */
    private RedisLockRegistry listening(RedisLockRegistry registry) throws Exception {
        RedisLockRegistry other = registry(RedisLockBackend.RECHECK);
        String key = "warm-up-" + registries.size();
        try (LockHandle held = other.obtain(key).acquire()) {
            assertThat(registry.obtain(key).tryAcquire(Duration.ofMillis(300))).isEmpty();
        }
        return registry;
    }

    private static void awaitLine(String key, int waiters) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (redis.zcard(line(key)) < waiters) {
            assertThat(System.nanoTime())
                    .as("%d waiters in line for %s", waiters, key)
                    .isLessThan(until);
            Thread.sleep(5);
        }
    }

    private static String line(String key) {
        return LockKey.of(key).name() + ":q";
    }

    /** The channels that messages about {@code key} went to, in order. */
    private static List<String> channelsFor(String key) {
        return messagesAbout(LockKey.of(key).name());
    }

    /**
     * The channels of the messages naming {@code lock}, once there are {@code count} (or after 5 s): the observer
     * hears them on a connection of its own, possibly after the waiter they woke has taken the key.
     */
    private static List<String> awaitMessagesAbout(String lock, int count) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (messagesAbout(lock).size() < count && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        return messagesAbout(lock);
    }

    /** The channels that messages naming {@code lock} went to, in order. */
    private static List<String> messagesAbout(String lock) {
        return messages.stream()
                .filter(message -> message[1].equals(lock))
                .map(message -> message[0])
                .toList();
    }
}
