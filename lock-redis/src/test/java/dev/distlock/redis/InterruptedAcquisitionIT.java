package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * An interrupt that cuts off the answer to an attempt leaves nothing held: the attempt reaches a frozen server
 * (SIGSTOP: connected, silent), the waiting thread is interrupted, and the server, continued, runs the attempt and
 * grants it. The registry must have sent the undo behind it, so that another registry gets the key at once instead
 * of after the orphaned grant's lease.
 */
class InterruptedAcquisitionIT {

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

    @ParameterizedTest(name = "wait {0} ms")
    @ValueSource(longs = {0, 30_000})
    void anAttemptWhoseAnswerAnInterruptCutOffIsUndone(long waitMillis) throws Exception {
        try (RedisLockRegistry interrupted = RedisLockRegistry.builder(factory)
                        .commandTimeout(Duration.ofSeconds(10))
                        .leaseTime(Duration.ofSeconds(60))
                        .build();
                RedisLockRegistry next = RedisLockRegistry.builder(factory).build()) {
            interrupted.obtain("warm").acquire().close();
            next.obtain("warm").acquire().close();
            String key = "cut-off-" + waitMillis;
            server.pause();
            CountDownLatch calling = new CountDownLatch(1);
            Thread[] caller = new Thread[1];
            CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> {
                caller[0] = Thread.currentThread();
                calling.countDown();
                try {
                    return interrupted.obtain(key).tryAcquire(Duration.ofMillis(waitMillis));
                } catch (Throwable e) {
                    return e;
                }
            });
            assertThat(calling.await(10, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(waitMillis > 0 ? 100 : 20); // the attempt is on the wire, its answer outstanding
            caller[0].interrupt();
            Object result = outcome.get(10, TimeUnit.SECONDS);
            if (waitMillis > 0) {
                assertThat(result)
                        .as("the interrupted acquisition ends with InterruptedException")
                        .isInstanceOf(InterruptedException.class);
            } else {
                // A zero wait's call may end first, by its own short timeout: nothing may stay held either way.
                assertThat(result).isInstanceOfAny(InterruptedException.class, LockBackendException.class);
            }
            server.resume();

            Optional<LockHandle> taken = next.obtain(key).tryAcquire(Duration.ofSeconds(2));
            assertThat(taken)
                    .as("the interrupted registry's attempt, granted after the interrupt, was undone")
                    .isPresent();
            taken.get().close();
        }
    }
}
