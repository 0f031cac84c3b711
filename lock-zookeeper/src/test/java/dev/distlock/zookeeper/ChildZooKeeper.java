package dev.distlock.zookeeper;

import dev.distlock.contract.servers.FreePorts;
import dev.distlock.contract.servers.ManagedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

/**
 * A ZooKeeper server in a JVM of its own, which a test can freeze with SIGSTOP: the connections stay open and nothing
 * answers, as when the server's machine stalls. An in-process server cannot be frozen apart from the test. Its JVM
 * runs no stall probe: a test freezes it on purpose, so its stall is the fault, never what excuses an overrun.
 */
final class ChildZooKeeper implements AutoCloseable {

    /** Sessions from 2 to 20 ticks: the fault tests' long sessions fit, a 4 s freeze stays inside them. */
    private static final int TICK_MS = 1000;

    private final ManagedProcess process;

    private ChildZooKeeper(ManagedProcess process) {
        this.process = process;
    }

    static ChildZooKeeper start() {
        int port = FreePorts.next();
        Path dir;
        try {
            dir = Files.createTempDirectory("zookeeper-child");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-Dzookeeper.admin.enableServer=false",
                "-Dzookeeper.jmx.log4j.disable=true",
                "-cp",
                System.getProperty("java.class.path"),
                "org.apache.zookeeper.server.ZooKeeperServerMain",
                Integer.toString(port),
                dir.resolve("data").toString(),
                Integer.toString(TICK_MS));
        ChildZooKeeper server =
                new ChildZooKeeper(ManagedProcess.start("zookeeper", command, dir, port, Duration.ofSeconds(30)));
        server.awaitServing(Duration.ofSeconds(60));
        return server;
    }

    /** The port accepts before the server serves ("ZooKeeperServer not running"): waits for a session. */
    private void awaitServing(Duration within) {
        try (CuratorFramework probe =
                CuratorFrameworkFactory.newClient(connectString(), 10_000, 2_000, new RetryNTimes(100, 100))) {
            probe.start();
            if (!probe.blockUntilConnected((int) within.toSeconds(), TimeUnit.SECONDS)) {
                close();
                throw new IllegalStateException("The child ZooKeeper on " + connectString() + " did not serve within "
                        + within + "; see its zookeeper.log");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException(e);
        }
    }

    String connectString() {
        return "127.0.0.1:" + process.port();
    }

    /** SIGSTOP. */
    void freeze() {
        process.pause();
    }

    /** SIGCONT. */
    void thaw() {
        process.resume();
    }

    @Override
    public void close() {
        process.close();
    }
}
