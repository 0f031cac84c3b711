package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** A frozen server (SIGSTOP: the connection stays up, nothing answers): no call outlives its wait time. */
class RedisSilentServerIT {

    /**
     * The moment to return that the bounds add to the promise: the margin of their {@link TimingBound}s, so an overrun
     * while this JVM stalled longer than that is measured again, on a server frozen afresh.
     */
    private static final Duration MOMENT = Duration.ofMillis(100);

    /** How far past its wait time a call may return: the answer budget (contract 8) and a moment to return. */
    private static final Duration SLACK = RegistryOptions.DEFAULT_ANSWER_BUDGET.plus(MOMENT);

    /** A budget other than the default, to see that the registry's own is the one kept. */
    private static final Duration BUDGET = Duration.ofMillis(400);

    private RedisServers servers;
    private ManagedProcess server;
    private LettuceConnectionFactory factory;

    @BeforeEach
    void startServer() {
        servers = new RedisServers();
        server = servers.start();
        factory = servers.factory(server);
    }

    @AfterEach
    void stopServer() {
        server.resume();
        servers.close();
    }

    @Test
    void acquisitionsEndWithinTheirWaitTimeOnASilentServer() throws Exception {
        TimingBound.of("RedisSilentServerIT.acquisitionsEndWithinTheirWaitTimeOnASilentServer", MOMENT)
                .check(() -> {
                    try (RedisLockRegistry registry = RedisLockRegistry.builder(factory)
                            .commandTimeout(Duration.ofSeconds(5))
                            .options(RegistryOptions.defaults().withAnswerBudget(BUDGET))
                            .build()) {
                        registry.obtain("warm").acquire().close();
                        String key = "silent-" + System.nanoTime();
                        server.pause();
                        try {
                            List<Timed> calls = new ArrayList<>();
                            for (Duration wait :
                                    List.of(Duration.ZERO, Duration.ofMillis(100), Duration.ofMillis(700))) {
                                long start = System.nanoTime();
                                Throwable thrown = catchThrowable(
                                        () -> registry.obtain(key).tryAcquire(wait));
                                Timed timed =
                                        Timed.since(start, wait.plus(BUDGET).plus(MOMENT));
                                assertThat(thrown)
                                        .as("tryAcquire(%s) on a silent server", wait)
                                        .isInstanceOf(LockBackendException.class)
                                        .hasMessageContaining(server.address());
                                assertThat(timed.took())
                                        .as("tryAcquire(%s) on a silent server kept its budget", wait)
                                        .isGreaterThanOrEqualTo(
                                                wait.plus(BUDGET).minusMillis(150));
                                calls.add(timed);
                            }
                            return worst(calls);
                        } finally {
                            server.resume();
                        }
                    }
                });
    }

    @Test
    void verifyNamesTheServerWithinItsTimeoutWhenTheServerIsSilent() throws Exception {
        TimingBound.of("RedisSilentServerIT.verifyNamesTheServerWithinItsTimeoutWhenTheServerIsSilent", MOMENT)
                .check(() -> {
                    try (RedisLockRegistry registry =
                            RedisLockRegistry.builder(factory).build()) {
                        registry.verify(Duration.ofSeconds(2));
                        server.pause();
                        try {
                            Duration timeout = Duration.ofMillis(500);
                            long start = System.nanoTime();
                            Throwable thrown = catchThrowable(() -> registry.verify(timeout));
                            Timed timed = Timed.since(start, timeout.plus(SLACK));
                            assertThat(thrown)
                                    .isInstanceOf(LockBackendException.class)
                                    .hasMessageContaining(server.address())
                                    .hasMessageContaining("Check that Redis runs");
                            return timed;
                        } finally {
                            server.resume();
                        }
                    }
                });
    }

    @Test
    void waiterEndsWithinItsWaitTimeWhenTheServerFallsSilent() throws Exception {
        TimingBound.of("RedisSilentServerIT.waiterEndsWithinItsWaitTimeWhenTheServerFallsSilent", MOMENT)
                .check(() -> {
                    String key = "falls-silent-" + System.nanoTime();
                    try (RedisLockRegistry holder =
                                    RedisLockRegistry.builder(factory).build();
                            RedisLockRegistry waiter = RedisLockRegistry.builder(factory)
                                    .commandTimeout(Duration.ofSeconds(5))
                                    .build()) {
                        LockHandle held = holder.obtain(key).acquire();
                        Duration wait = Duration.ofMillis(800);
                        Thread freezer = new Thread(() -> {
                            try {
                                Thread.sleep(300);
                                server.pause();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        });
                        long start = System.nanoTime();
                        freezer.start();
                        Timed timed;
                        try {
                            Throwable thrown =
                                    catchThrowable(() -> waiter.obtain(key).tryAcquire(wait));
                            timed = Timed.since(start, wait.plus(SLACK));
                            if (thrown != null) {
                                assertThat(thrown)
                                        .as("empty or an error naming the server")
                                        .isInstanceOf(LockBackendException.class);
                            }
                        } finally {
                            freezer.join();
                            server.resume();
                        }
                        held.close();
                        return timed;
                    }
                });
    }

    /** The call that overran its bound the most, or came closest to it. */
    private static Timed worst(List<Timed> calls) {
        return calls.stream()
                .max(Comparator.comparing(timed -> timed.took().minus(timed.bound())))
                .orElseThrow();
    }
}
