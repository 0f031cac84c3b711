package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.redis.RedisServers;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * A Redis outage seen through the client Spring Boot builds from {@code spring.data.redis.*}:
 * ten concurrent callers each ride out the outage until their wait ends, then end within the
 * documented slack, the one that reached Redis with the last error; locking works again soon
 * after redis-server is back.
 */
class RedisOutageIT {

    private static final Duration WAIT = Duration.ofSeconds(2);
    /** The registry's answer budget: how far past its wait a call may run (contract 8). */
    private static final Duration SLACK = Duration.ofMillis(250);
    /**
     * The client's longest reconnect delay ({@link
     * #theClientSpringBootBuildsFailsFastWhileDisconnectedAndReconnectsWithinHalfASecond}).
     */
    private static final Duration RECONNECT_DELAY = Duration.ofMillis(500);
    /**
     * How soon after Redis is back a lock must be granted again: the reconnect delay, with room for a loaded
     * machine. That room is the margin of its {@link TimingBound}: an overrun while this JVM stalled longer than that
     * is measured again, after an outage of its own.
     */
    private static final Duration RECOVERY = Duration.ofSeconds(2);

    private static final int CALLERS = 10;
    /** Long enough for an untuned client to back off its reconnects to several seconds. */
    private static final Duration OUTAGE = Duration.ofSeconds(8);

    private RedisServers servers;
    private ManagedProcess redis;

    @BeforeEach
    void startRedis() {
        servers = new RedisServers();
        redis = servers.start();
    }

    @AfterEach
    void stopRedis() {
        servers.close();
    }

    /** Spring Boot's Redis auto-configuration: its class moved between Boot 3.5 and 4.x. */
    private static Class<?> bootRedisAutoConfiguration() {
        for (String name : List.of(
                "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
                "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration")) {
            if (ClassUtils.isPresent(name, null)) {
                return ClassUtils.resolveClassName(name, null);
            }
        }
        throw new IllegalStateException("No Spring Boot Redis auto-configuration on the classpath");
    }

    @Test
    void theClientSpringBootBuildsFailsFastWhileDisconnectedAndReconnectsWithinHalfASecond() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(bootRedisAutoConfiguration(), DistributedLockAutoConfiguration.class))
                .withPropertyValues(
                        "distributed-lock.backend=redis",
                        "distributed-lock.startup-check.mode=off",
                        "spring.data.redis.port=" + redis.port())
                .run(context -> {
                    LettuceClientConfiguration client =
                            context.getBean(LettuceConnectionFactory.class).getClientConfiguration();
                    assertThat(client.getClientOptions().orElseThrow().getDisconnectedBehavior())
                            .isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
                    Delay reconnect = client.getClientResources().orElseThrow().reconnectDelay();
                    for (long attempt = 1; attempt <= 30; attempt++) {
                        assertThat(reconnect.createDelay(attempt)).isLessThanOrEqualTo(Duration.ofMillis(500));
                    }
                });
    }

    @Test
    void tenCallersDuringAnOutageRideItOutUntilTheirWaitEndsAndLockingRecoversQuickly() throws Exception {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(bootRedisAutoConfiguration(), DistributedLockAutoConfiguration.class))
                .withPropertyValues(
                        "distributed-lock.backend=redis",
                        "distributed-lock.answer-budget=" + SLACK.toMillis() + "ms",
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.port())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockRegistry registry = context.getBean(LockRegistry.class);

                    // Each measurement kills a redis-server that a lock reached moments ago. The calls' bound is
                    // the promise itself, with no room for a loaded machine: any stall of this JVM makes an overrun
                    // inconclusive, and a third inconclusive one fails.
                    AtomicLong outageStart = new AtomicLong();
                    TimingBound.of("RedisOutageIT.tenCallersDuringAnOutageEndWithinTheirWait", Duration.ZERO)
                            .check(() -> {
                                if (!redis.isAlive()) { // a repeat: Redis is back, and locking with it
                                    redis.restart();
                                    lockAgain(registry);
                                }
                                assertThat(tryOnce(registry, WAIT))
                                        .as("a lock before the outage")
                                        .isTrue();
                                redis.kill();
                                outageStart.set(System.nanoTime());
                                List<Call> calls = concurrentCallsDuringOutage(registry);
                                System.out.println("Redis outage: " + CALLERS + " concurrent callers with wait "
                                        + WAIT.toMillis() + "ms: " + calls);
                                assertThat(calls)
                                        .as("no call gets the key during the outage")
                                        .allSatisfy(call ->
                                                assertThat(call.granted()).isFalse());
                                // Calls that reached Redis with time left rode the outage out and name the last
                                // error. A call whose wait ran out while it queued on the key's local gate ends
                                // empty, or, when it got the gate just as its deadline passed, makes the one
                                // attempt of a zero-wait call and fails with that attempt's error.
                                List<RuntimeException> errors = calls.stream()
                                        .map(Call::error)
                                        .filter(error -> error != null)
                                        .toList();
                                assertThat(errors)
                                        .allSatisfy(error -> assertThat(error)
                                                .isInstanceOf(LockBackendException.class)
                                                .hasMessageContaining(redis.address())
                                                .hasMessageContaining("'outage'")
                                                .hasMessageContaining("Check that Redis runs"));
                                assertThat(errors)
                                        .as("the call that held the key's local gate rode the outage out")
                                        .anySatisfy(error -> assertThat(error).hasMessageContaining("last error"));
                                // Each call rides out the outage until its wait ends, and no longer (contract 8).
                                long longest = calls.stream()
                                        .mapToLong(Call::millis)
                                        .max()
                                        .orElseThrow();
                                return new Timed(Duration.ofMillis(longest), WAIT.plus(SLACK));
                            });

                    TimingBound.of("RedisOutageIT.lockingRecoversQuickly", RECOVERY.minus(RECONNECT_DELAY))
                            .check(() -> {
                                if (redis.isAlive()) { // a repeat: an outage as long as the first
                                    redis.kill();
                                    outageStart.set(System.nanoTime());
                                }
                                sleepUntil(outageStart.get() + OUTAGE.toNanos());
                                redis.restart();
                                long recoveryMillis = lockAgain(registry);
                                System.out.println("Redis outage: first lock granted " + recoveryMillis
                                        + "ms after redis-server accepted connections again");
                                return new Timed(Duration.ofMillis(recoveryMillis), RECOVERY);
                            });
                });
    }

    /** Tries for a lock until one is granted, for up to 40 s: how many milliseconds that took. */
    private static long lockAgain(LockRegistry registry) throws InterruptedException {
        long back = System.nanoTime();
        while (!tryOnce(registry, Duration.ofMillis(100))
                && System.nanoTime() - back < Duration.ofSeconds(40).toNanos()) {
            Thread.sleep(20);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - back);
    }

    /** One call during the outage: how long it took, whether it got the key, what it threw. */
    private record Call(long millis, boolean granted, RuntimeException error) {

        @Override
        public String toString() {
            return millis + "ms "
                    + (granted
                            ? "granted"
                            : error == null ? "empty" : error.getClass().getSimpleName());
        }
    }

    /** Each of ten threads asks once for the same key. */
    private static List<Call> concurrentCallsDuringOutage(LockRegistry registry) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Call>> calls = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                calls.add(pool.submit(() -> {
                    start.await();
                    long began = System.nanoTime();
                    boolean granted = false;
                    RuntimeException error = null;
                    try {
                        Optional<LockHandle> handle = registry.obtain("outage").tryAcquire(WAIT);
                        granted = handle.isPresent();
                        handle.ifPresent(LockHandle::close);
                    } catch (RuntimeException e) {
                        error = e;
                    }
                    return new Call(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began), granted, error);
                }));
            }
            start.countDown();
            List<Call> ended = new ArrayList<>();
            for (Future<Call> call : calls) {
                ended.add(call.get(60, TimeUnit.SECONDS));
            }
            return ended;
        } finally {
            pool.shutdownNow();
        }
    }

    private static boolean tryOnce(LockRegistry registry, Duration wait) throws InterruptedException {
        try {
            Optional<LockHandle> handle = registry.obtain("outage").tryAcquire(wait);
            handle.ifPresent(LockHandle::close);
            return handle.isPresent();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
