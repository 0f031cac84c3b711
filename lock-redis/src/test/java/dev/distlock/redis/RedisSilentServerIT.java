package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** A frozen server (SIGSTOP: the connection stays up, nothing answers): no call outlives its wait time. */
class RedisSilentServerIT {

    /** How far past its wait time a call may return: the answer budget (contract 8) and a moment to return. */
    private static final Duration SLACK = RegistryOptions.DEFAULT_ANSWER_BUDGET.plusMillis(100);

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
        try (RedisLockRegistry registry = RedisLockRegistry.builder(factory)
                .commandTimeout(Duration.ofSeconds(5))
                .options(RegistryOptions.defaults().withAnswerBudget(BUDGET))
                .build()) {
            registry.obtain("warm").acquire().close();
            server.pause();
            for (Duration wait : List.of(Duration.ZERO, Duration.ofMillis(100), Duration.ofMillis(700))) {
                long start = System.nanoTime();
                Throwable thrown =
                        catchThrowable(() -> registry.obtain("silent").tryAcquire(wait));
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(thrown)
                        .as("tryAcquire(%s) on a silent server", wait)
                        .isInstanceOf(LockBackendException.class)
                        .hasMessageContaining(server.address());
                assertThat(took)
                        .as("tryAcquire(%s) on a silent server", wait)
                        .isLessThan(wait.plus(BUDGET).plusMillis(100))
                        .isGreaterThanOrEqualTo(wait.plus(BUDGET).minusMillis(150));
            }
        }
    }

    @Test
    void verifyNamesTheServerWithinItsTimeoutWhenTheServerIsSilent() throws Exception {
        try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).build()) {
            registry.verify(Duration.ofSeconds(2));
            server.pause();
            Duration timeout = Duration.ofMillis(500);
            long start = System.nanoTime();
            Throwable thrown = catchThrowable(() -> registry.verify(timeout));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(thrown)
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining(server.address())
                    .hasMessageContaining("Check that Redis runs");
            assertThat(took).isLessThan(timeout.plus(SLACK));
        }
    }

    @Test
    void waiterEndsWithinItsWaitTimeWhenTheServerFallsSilent() throws Exception {
        try (RedisLockRegistry holder = RedisLockRegistry.builder(factory).build();
                RedisLockRegistry waiter = RedisLockRegistry.builder(factory)
                        .commandTimeout(Duration.ofSeconds(5))
                        .build()) {
            LockHandle held = holder.obtain("falls-silent").acquire();
            Duration wait = Duration.ofMillis(800);
            long start = System.nanoTime();
            Thread freezer = new Thread(() -> {
                try {
                    Thread.sleep(300);
                    server.pause();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            freezer.start();
            Throwable thrown =
                    catchThrowable(() -> waiter.obtain("falls-silent").tryAcquire(wait));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(wait.plus(SLACK));
            if (thrown != null) {
                assertThat(thrown).as("empty or an error naming the server").isInstanceOf(LockBackendException.class);
            }
            freezer.join();
            server.resume();
            held.close();
        }
    }
}
