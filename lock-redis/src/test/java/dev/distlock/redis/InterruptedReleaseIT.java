package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** A release on a thread whose interrupt flag is set completes, keeps the flag and does not throw. */
class InterruptedReleaseIT {

    private static RedisServers servers;
    private static LettuceConnectionFactory single;
    private static final List<String> redlockNodes = new ArrayList<>();

    @BeforeAll
    static void startServers() {
        servers = new RedisServers();
        single = servers.factory(servers.start());
        for (int i = 0; i < 3; i++) {
            redlockNodes.add("redis://" + servers.start().address());
        }
    }

    @AfterAll
    static void stopServers() {
        servers.close();
    }

    @Test
    void closeOnAnInterruptedThreadFreesTheKeyOnRedis() throws Exception {
        try (RedisLockRegistry owner = RedisLockRegistry.builder(single).build();
                RedisLockRegistry next = RedisLockRegistry.builder(single).build()) {
            assertReleasedWhileInterrupted(owner, next, false);
            assertReleasedWhileInterrupted(owner, next, true);
        }
    }

    @Test
    void closeOnAnInterruptedThreadFreesTheKeyOnRedlock() throws Exception {
        try (RedlockLockRegistry owner =
                        RedlockLockRegistry.builder().nodeUris(redlockNodes).build();
                RedlockLockRegistry next =
                        RedlockLockRegistry.builder().nodeUris(redlockNodes).build()) {
            assertReleasedWhileInterrupted(owner, next, false);
            assertReleasedWhileInterrupted(owner, next, true);
        }
    }

    private static void assertReleasedWhileInterrupted(LockRegistry owner, LockRegistry next, boolean viaUnlock)
            throws Exception {
        String key = "interrupted-" + viaUnlock;
        LockHandle held = owner.obtain(key).acquire();
        Thread.currentThread().interrupt();
        Throwable thrown = null;
        try {
            if (viaUnlock) {
                owner.obtain(key).unlock();
            } else {
                held.close();
            }
        } catch (RuntimeException e) {
            thrown = e;
        }
        boolean stillInterrupted = Thread.interrupted(); // clears it for the checks below
        assertThat(thrown).as("release on an interrupted thread").isNull();
        assertThat(stillInterrupted).as("the interrupt flag is kept").isTrue();
        Optional<LockHandle> taken = next.obtain(key).tryAcquire(Duration.ZERO);
        assertThat(taken).as("the key was freed on the server").isPresent();
        taken.get().close();
    }
}
