package dev.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A holder whose whole JVM was stopped (SIGSTOP, standing for a long GC pause or a frozen VM)
 * past its session timeout, while another registry took the key: the moment it continues, before
 * its client has noticed anything, its handle must already say invalid.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ZooKeeperPausedHolderIT {

    private final CuratorClients clients = new CuratorClients();
    private TestingServer server;
    private Process holder;
    private ZooKeeperLockRegistry other;

    @AfterEach
    void tearDown() throws Exception {
        if (holder != null) {
            signal("CONT");
            holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (other != null) {
            other.close();
        }
        clients.closeAll();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aHolderPausedPastItsSessionTimeoutIsInvalidTheMomentItResumes() throws Exception {
        pauseAndResume("watchdog", false);
    }

    @Test
    void aFixedLeaseHolderPausedPastItsSessionTimeoutIsInvalidTheMomentItResumes() throws Exception {
        pauseAndResume("fixed", false);
    }

    @Test
    void aFixedLeaseReaderPausedPastItsSessionTimeoutIsInvalidTheMomentItResumes() throws Exception {
        pauseAndResume("read-fixed", true);
    }

    /** Pauses a holder JVM of {@code kind} past its session while this JVM takes the key (as a writer when {@code readWrite}). */
    private void pauseAndResume(String kind, boolean readWrite) throws Exception {
        server = new TestingServer(true);
        String key = "paused-" + UUID.randomUUID();
        Path log = Files.createTempFile("paused-holder", ".log");
        holder = new ProcessBuilder(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        PausedHolder.class.getName(),
                        server.getConnectString(),
                        key,
                        kind))
                .redirectError(log.toFile())
                .start();
        BufferedReader out =
                new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.US_ASCII));
        String held = out.readLine();
        assertThat(held).as("the holder JVM's first line (log: %s)", log).startsWith("HELD ");
        FencingToken heldToken = FencingToken.of(Long.parseLong(held.substring(5)));

        other = ZooKeeperLockRegistry.builder(clients.connect(server.getConnectString()))
                .build();
        signal("STOP");
        // The server expires the stopped holder's session after its timeout; then the key is free.
        Duration wait = Duration.ofMillis(CuratorClients.SESSION_TIMEOUT_MS).multipliedBy(4);
        LockHandle taken = readWrite
                ? other.readWriteLock(key).writeLock().tryAcquire(wait).orElseThrow()
                : other.obtain(key).tryAcquire(wait).orElseThrow();
        assertThat(taken.token().isNewerThan(heldToken)).isTrue();
        signal("CONT");

        String resumed = out.readLine();
        assertThat(resumed)
                .as("what the holder's handle said right after it resumed, while another owner held the key")
                .isEqualTo("RESUMED false");
        assertThat(taken.isValid()).isTrue();
        taken.close();
    }

    private void signal(String signal) throws IOException, InterruptedException {
        if (holder.isAlive()) {
            new ProcessBuilder("kill", "-" + signal, Long.toString(holder.pid()))
                    .redirectError(new File("/dev/null"))
                    .start()
                    .waitFor(10, TimeUnit.SECONDS);
        }
    }
}
