package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A minimum hold outlives its process: the holder JVM releases a key it asked to hold at least
 * 20 s and halts at once; its session lease (3 s) ends soon after, the minimum hold must not.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdMinimumHoldIT {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration MINIMUM = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private Process holder;

    @AfterEach
    void stopHolder() throws InterruptedException {
        if (holder != null) {
            holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void minimumHoldOfAProcessThatHaltsKeepsTheKeyForItsWholeTime() throws Exception {
        String key = "minimum-after-halt";
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                LockRegistry other = etcd.newRegistry(RegistryOptions.defaults().withLeaseTime(LEASE))) {
            holder = new ProcessBuilder(List.of(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                            MinimumHolder.class.getName(),
                            etcd.endpoints(),
                            key,
                            Long.toString(LEASE.toMillis()),
                            Long.toString(MINIMUM.toMillis())))
                    .redirectError(dir.resolve("holder.log").toFile())
                    .start();
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.US_ASCII));
            String held = out.readLine();
            long heldSeenAt = System.nanoTime();
            assertThat(held).as("the holder JVM's first line (log in %s)", dir).startsWith("HELD ");
            FencingToken heldToken = FencingToken.of(Long.parseLong(held.substring(5)));
            assertThat(holder.waitFor(20, TimeUnit.SECONDS))
                    .as("the holder halted")
                    .isTrue();

            // Twice the session lease after the halt: a key kept only by the session lease is free by now.
            Thread.sleep(Math.max(0, TimeUnit.SECONDS.toMillis(8) - elapsedMillis(heldSeenAt)));
            long checkedAt = elapsedMillis(heldSeenAt);
            assertThat(other.obtain(key).tryAcquire(Duration.ZERO))
                    .as("the key is still held %d ms into a minimum hold of %s", checkedAt, MINIMUM)
                    .isEmpty();

            try (LockHandle taken =
                    other.obtain(key).tryAcquire(MINIMUM.multipliedBy(2)).orElseThrow()) {
                assertThat(taken.token().isNewerThan(heldToken)).isTrue();
                assertThat(Duration.ofMillis(elapsedMillis(heldSeenAt)))
                        .as("the key came free when the minimum hold ended, not before")
                        .isGreaterThan(MINIMUM.minusSeconds(2));
            }
        }
    }

    private static long elapsedMillis(long sinceNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sinceNanos);
    }
}
