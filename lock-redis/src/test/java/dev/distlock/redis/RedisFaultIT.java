package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** What callers see when the server dies, freezes or restarts without its data; each test has its own server. */
class RedisFaultIT {

    private RedisServers servers;
    private ManagedProcess server;
    private LettuceConnectionFactory factory;
    private ExecutorService threads;

    @BeforeEach
    void startServer() {
        servers = new RedisServers();
        server = servers.start();
        factory = servers.factory(server);
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stopServer() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        servers.close();
    }

    private RedisLockRegistry registry(Duration lease) {
        return RedisLockRegistry.builder(factory).leaseTime(lease).build();
    }

    /** Over a client that fails commands at once while disconnected, as the starter tunes it. */
    private RedisLockRegistry failFastRegistry() {
        return RedisLockRegistry.builder(servers.failFastFactory(server))
                .leaseTime(Duration.ofSeconds(30))
                .build();
    }

    @Test
    void tokenAboveTenToTheFifteenthRoundTripsExactly() throws Exception {
        try (RedisLockRegistry registry = registry(Duration.ofSeconds(30))) {
            // Above the server clock in microseconds (~1.8e15) and close to 2^53, where a Lua
            // double printed with tostring would lose digits.
            RedisServers.cli(server.port(), "SET", "distlock:{big}", "#8999999999999990", "PX", "60000");
            try (LockHandle first = registry.obtain("big").acquire()) {
                assertThat(first.token()).isEqualTo(FencingToken.of(8_999_999_999_999_991L));
            }
            try (LockHandle second = registry.obtain("big").acquire()) {
                assertThat(second.token()).isEqualTo(FencingToken.of(8_999_999_999_999_992L));
            }
            assertThat(RedisServers.cli(server.port(), "GET", "distlock:{big}").trim())
                    .as("the fence alone stays while it is ahead of the clock")
                    .isEqualTo("#8999999999999992");
        }
    }

    @Test
    void tokenOfAFreshKeyIsTheServerClockInMicroseconds() throws Exception {
        try (RedisLockRegistry registry = registry(Duration.ofSeconds(30))) {
            long before = serverMicros();
            long token;
            try (LockHandle handle = registry.obtain("fresh").acquire()) {
                token = handle.token().value();
            }
            assertThat(token).isBetween(before, serverMicros()).isGreaterThan(1_000_000_000_000_000L);
        }
    }

    @Test
    void aHeldKeyIsOneStringOfOwnerTokenFlagsAndHolderThatTheReleaseDeletes() throws Exception {
        try (RedisLockRegistry registry = registry(Duration.ofSeconds(30));
                RedisLockRegistry waiter = registry(Duration.ofSeconds(30))) {
            LockHandle handle = registry.obtain("layout").acquire();
            String stored =
                    RedisServers.cli(server.port(), "GET", "distlock:{layout}").trim();
            String[] parts = stored.split(" ", 3);
            assertThat(parts[1]).isEqualTo(Long.toString(handle.token().value()));
            assertThat(parts[2]).as("no waiter, token from the clock").startsWith("--");
            assertThat(registry.holderOf("layout").orElseThrow().holder()).isEqualTo(parts[2].substring(2));
            long ttl = Long.parseLong(
                    RedisServers.cli(server.port(), "PTTL", "distlock:{layout}").trim());
            assertThat(ttl).isBetween(1L, 30_000L);

            assertThat(waiter.obtain("layout").tryAcquire(Duration.ofMillis(50)))
                    .isEmpty();
            assertThat(RedisServers.cli(server.port(), "GET", "distlock:{layout}")
                            .trim())
                    .as("a waiter asked for a release message")
                    .isEqualTo(parts[0] + " " + parts[1] + " -w" + parts[2].substring(2));
            handle.close();
            assertThat(RedisServers.cli(server.port(), "EXISTS", "distlock:{layout}")
                            .trim())
                    .isEqualTo("0");
        }
    }

    @Test
    void aHoldInTheHashOfVersionZeroPointOneCountsAsHeldUntilItExpires() throws Exception {
        try (RedisLockRegistry registry = registry(Duration.ofSeconds(30))) {
            RedisServers.cli(server.port(), "HSET", "distlock:{legacy}", "owner", "old-client", "fence", "1");
            RedisServers.cli(server.port(), "PEXPIRE", "distlock:{legacy}", "1500");
            assertThat(registry.obtain("legacy").tryAcquire(Duration.ZERO)).isEmpty();
            try (LockHandle handle =
                    registry.obtain("legacy").tryAcquire(Duration.ofSeconds(10)).orElseThrow()) {
                assertThat(handle.token().value()).isGreaterThan(1_000_000_000_000_000L);
            }
        }
    }

    @Test
    void tokenStillRisesAfterARestartThatLostTheCounter() throws Exception {
        try (RedisLockRegistry registry = registry(Duration.ofSeconds(30))) {
            FencingToken last = null;
            for (int i = 0; i < 20; i++) {
                try (LockHandle handle = registry.obtain("restart").acquire()) {
                    last = handle.token();
                }
            }
            server.restart(); // SIGKILL, no persistence: the counter is gone
            assertThat(RedisServers.cli(server.port(), "EXISTS", "distlock:{restart}")
                            .trim())
                    .isEqualTo("0");
            LockHandle after = acquireOnceReconnected(registry, "restart");
            assertThat(after.token().isNewerThan(last))
                    .as("%s after %s", after.token(), last)
                    .isTrue();
            after.close();
        }
    }

    @Test
    void tokensRiseAcrossReleaseExpiryRemovalAndARestartWithoutPersistence() throws Exception {
        try (RedisLockRegistry registry = registry(Duration.ofSeconds(30))) {
            List<FencingToken> tokens = new ArrayList<>();
            try (LockHandle released = registry.obtain("rising").acquire()) {
                tokens.add(released.token());
            }
            // A wait, not a zero wait: a grant answered after its 30 ms lease is given back and asked for again.
            LockHandle expiring = registry.obtain("rising")
                    .tryAcquire(Duration.ofSeconds(5), Duration.ofMillis(30))
                    .orElseThrow();
            tokens.add(expiring.token());
            Thread.sleep(100); // the server let the lease go: the hash went with it
            assertThat(RedisServers.cli(server.port(), "EXISTS", "distlock:{rising}")
                            .trim())
                    .isEqualTo("0");
            expiring.close();
            LockHandle removed = registry.obtain("rising").acquire();
            tokens.add(removed.token());
            RedisServers.cli(server.port(), "DEL", "distlock:{rising}"); // server state removed
            removed.close();
            try (LockHandle afterRemoval = registry.obtain("rising").acquire()) {
                tokens.add(afterRemoval.token());
            }
            server.restart(); // SIGKILL, no persistence
            LockHandle afterRestart = acquireOnceReconnected(registry, "rising");
            tokens.add(afterRestart.token());
            afterRestart.close();
            for (int i = 1; i < tokens.size(); i++) {
                assertThat(tokens.get(i).isNewerThan(tokens.get(i - 1)))
                        .as("token %d (%s) after %s", i, tokens.get(i), tokens.get(i - 1))
                        .isTrue();
            }
        }
    }

    @Test
    void aFenceAheadOfTheServerClockStaysOnlyUntilTheClockPassesIt() throws Exception {
        try (RedisLockRegistry registry = registry(Duration.ofSeconds(30))) {
            // As after a Redlock grant whose token came from a node with a clock 2 s ahead.
            long ahead = serverMicros() + 2_000_000;
            RedisServers.cli(server.port(), "SET", "distlock:{ahead}", "#" + ahead, "PX", "2500");
            FencingToken held;
            try (LockHandle handle = registry.obtain("ahead").acquire()) {
                held = handle.token();
                assertThat(held.value()).isEqualTo(ahead + 1);
            }
            assertThat(RedisServers.cli(server.port(), "GET", "distlock:{ahead}")
                            .trim())
                    .as("only the fence stays")
                    .isEqualTo("#" + (ahead + 1));
            long ttl = Long.parseLong(
                    RedisServers.cli(server.port(), "PTTL", "distlock:{ahead}").trim());
            assertThat(ttl).as("until the clock has passed it").isBetween(1L, 2_100L);
            try (LockHandle next = registry.obtain("ahead").acquire()) {
                assertThat(next.token().isNewerThan(held)).isTrue();
            }
        }
    }

    /**
     * The bound is the wait plus the registry's answer budget (one second by default), and adds nothing for a busy
     * machine: the margin of its {@link TimingBound} is zero, and an overrun while this JVM stalled at all is measured
     * again, on a server started and killed afresh.
     */
    @Test
    void waiterRidesOutTheOutageAndFailsNamingTheLastErrorWhenItsWaitEnds() throws Exception {
        TimingBound.of("RedisFaultIT.waiterRidesOutTheOutageAndFailsNamingTheLastErrorWhenItsWaitEnds", Duration.ZERO)
                .check(() -> {
                    if (!server.isAlive()) {
                        server.restart();
                    }
                    String key = "dies-" + System.nanoTime();
                    try (RedisLockRegistry holder = registry(Duration.ofSeconds(30));
                            RedisLockRegistry waiter = failFastRegistry()) {
                        LockHandle held = holder.obtain(key).acquire();
                        Duration wait = Duration.ofSeconds(4);
                        Future<Long> waiting = threads.submit(() -> {
                            long start = System.nanoTime();
                            try {
                                waiter.obtain(key).tryAcquire(wait);
                                throw new AssertionError("neither granted nor empty while the server is dead");
                            } catch (LockBackendException expected) {
                                long took = System.nanoTime() - start;
                                assertThat(expected)
                                        .hasMessageContaining(server.address())
                                        .hasMessageContaining(key)
                                        .hasMessageContaining("last error");
                                return took;
                            }
                        });
                        Thread.sleep(500);
                        assertThat(waiting.isDone()).isFalse();
                        server.kill();
                        Duration took = Duration.ofNanos(waiting.get(20, TimeUnit.SECONDS));
                        assertThat(took)
                                .as("rode out the outage until its wait ended")
                                .isGreaterThanOrEqualTo(wait);
                        assertThatThrownBy(held::close)
                                .as("releasing a live hold on a dead server reports it")
                                .isInstanceOf(LockBackendException.class)
                                .hasMessageContaining(server.address());
                        return new Timed(took, wait.plusSeconds(1));
                    }
                });
    }

    @Test
    void waiterRidesOutARestartWithinItsWaitAndGetsTheKey() throws Exception {
        try (RedisLockRegistry holder = registry(Duration.ofSeconds(30));
                RedisLockRegistry waiter = failFastRegistry()) {
            holder.obtain("restarts").acquire();
            Future<Optional<LockHandle>> waiting =
                    threads.submit(() -> waiter.obtain("restarts").tryAcquire(Duration.ofSeconds(60)));
            Thread.sleep(500);
            server.kill();
            Thread.sleep(1000);
            assertThat(waiting.isDone()).as("still waiting while Redis is down").isFalse();
            server.restart(); // no persistence: the holder's key is gone
            Optional<LockHandle> got = waiting.get(30, TimeUnit.SECONDS);
            assertThat(got).isPresent();
            got.get().close();
        }
    }

    @Test
    void writeLockWaiterRidesOutARestartWithinItsWaitAndGetsTheKey() throws Exception {
        try (RedisLockRegistry holder = registry(Duration.ofSeconds(30));
                RedisLockRegistry waiter = failFastRegistry()) {
            holder.readWriteLock("rw-restarts").writeLock().acquire();
            Future<Optional<LockHandle>> waiting = threads.submit(
                    () -> waiter.readWriteLock("rw-restarts").writeLock().tryAcquire(Duration.ofSeconds(60)));
            Thread.sleep(500);
            server.kill();
            Thread.sleep(1000);
            assertThat(waiting.isDone()).as("still waiting while Redis is down").isFalse();
            server.restart(); // no persistence: the holder's write lock is gone
            Optional<LockHandle> got = waiting.get(30, TimeUnit.SECONDS);
            assertThat(got).isPresent();
            got.get().close();
        }
    }

    @Test
    void callStartedWhileRedisIsDownGetsTheKeyWhenItComesBackWithinTheWait() throws Exception {
        try (RedisLockRegistry registry = failFastRegistry()) {
            registry.obtain("warm").acquire().close();
            server.kill();
            Future<Optional<LockHandle>> waiting =
                    threads.submit(() -> registry.obtain("comes-back").tryAcquire(Duration.ofSeconds(30)));
            Thread.sleep(1000);
            server.restart();
            Optional<LockHandle> got = waiting.get(40, TimeUnit.SECONDS);
            assertThat(got).isPresent();
            got.get().close();
        }
    }

    @Test
    void zeroWaitFailsAtOnceWhileRedisIsDown() throws Exception {
        try (RedisLockRegistry registry = failFastRegistry()) {
            registry.obtain("warm").acquire().close();
            server.kill();
            assertThatThrownBy(() -> registry.obtain("down").tryAcquire(Duration.ZERO))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining(server.address());
        }
    }

    @Test
    void holdTurnsInvalidWhenTheServerIsUnreachablePastTheLease() throws Exception {
        try (RedisLockRegistry registry = registry(Duration.ofSeconds(1))) {
            LockHandle held = registry.obtain("unreachable").acquire();
            server.kill();
            Thread.sleep(2500);
            assertThat(held.isValid()).isFalse();
            held.close(); // a lost hold closes quietly
        }
    }

    @Test
    void frozenServerFailsACallWithinTheWaitTime() throws Exception {
        Duration budget = Duration.ofMillis(400);
        // The wait, the answer budget, and 400 ms of a loaded machine's scheduling: the margin of the check.
        Duration scheduling = Duration.ofMillis(400);
        Duration wait = Duration.ofSeconds(1);
        TimingBound.of("RedisFaultIT.frozenServerFailsACallWithinTheWaitTime", scheduling)
                .check(() -> {
                    try (RedisLockRegistry registry = RedisLockRegistry.builder(factory)
                            .options(RegistryOptions.defaults()
                                    .withLeaseTime(Duration.ofSeconds(30))
                                    .withAnswerBudget(budget))
                            .build()) {
                        registry.obtain("warm").acquire().close();
                        String key = "frozen-" + System.nanoTime();
                        server.pause();
                        try {
                            long start = System.nanoTime();
                            Throwable thrown =
                                    catchThrowable(() -> registry.obtain(key).tryAcquire(wait));
                            Timed timed = Timed.since(start, wait.plus(budget).plus(scheduling));
                            assertThat(thrown)
                                    .isInstanceOf(LockBackendException.class)
                                    .hasMessageContaining(server.address());
                            return timed;
                        } finally {
                            server.resume();
                        }
                    }
                });
    }

    private long serverMicros() throws Exception {
        String[] time = RedisServers.cli(server.port(), "TIME").trim().split("\\s+");
        return Long.parseLong(time[0]) * 1_000_000 + Long.parseLong(time[1]);
    }

    private static LockHandle acquireOnceReconnected(RedisLockRegistry registry, String key) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return registry.obtain(key).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            } catch (LockBackendException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
