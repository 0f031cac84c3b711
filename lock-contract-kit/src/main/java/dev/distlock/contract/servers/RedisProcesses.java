package dev.distlock.contract.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * redis-server processes on free loopback ports, without persistence, each in a directory of its own. Standalone
 * servers or a three-master Redis Cluster. Everything started is stopped by {@link #close()}.
 */
public final class RedisProcesses implements AutoCloseable {

    private final List<ManagedProcess> processes = new ArrayList<>();
    private final Path root;

    /** Fails (CI=true) or skips the calling test when redis-server is not installed. */
    public RedisProcesses() {
        RequiredServer.require(
                ManagedProcess.findExecutable("redis-server").isPresent(),
                "redis-server",
                "no redis-server executable on the PATH");
        try {
            root = Files.createTempDirectory("distlock-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A standalone server without persistence. */
    public ManagedProcess start() {
        return start(List.of());
    }

    /** A standalone server with {@code extraArgs} added to its command line. */
    public ManagedProcess start(List<String> extraArgs) {
        return start(FreePorts.next(), extraArgs);
    }

    private ManagedProcess start(int port, List<String> extraArgs) {
        List<String> command = new ArrayList<>(List.of(
                executable("redis-server"),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no"));
        command.addAll(extraArgs);
        ManagedProcess process = ManagedProcess.start(
                "redis-" + port, command, root.resolve("redis-" + port), port, Duration.ofSeconds(20));
        processes.add(process);
        return process;
    }

    /** Three masters with their hash slots assigned. Returns once each reports the cluster ok. */
    public List<ManagedProcess> startCluster() throws Exception {
        RequiredServer.require(
                ManagedProcess.findExecutable("redis-cli").isPresent(),
                "redis-cli",
                "needed to create a Redis Cluster");
        List<ManagedProcess> masters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            // A cluster node also listens on its port + 10000 (the cluster bus).
            masters.add(start(
                    FreePorts.nextWithPartner(10_000),
                    List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")));
        }
        List<String> create = new ArrayList<>(List.of(executable("redis-cli"), "--cluster", "create"));
        masters.forEach(master -> create.add(master.address()));
        create.add("--cluster-yes");
        run(create);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (ManagedProcess master : masters) {
            while (!cli(master.port(), "cluster", "info").contains("cluster_state:ok")) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Redis Cluster did not reach cluster_state:ok within 30s");
                }
                Thread.sleep(100);
            }
        }
        return masters;
    }

    /** Runs redis-cli against {@code port}. Returns its output. */
    public static String cli(int port, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(executable("redis-cli"), "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        return run(command);
    }

    /** {@code redis-server} and its version, as a report names the server; {@code ?} for a version it cannot tell. */
    public static String version() {
        try {
            Process process = new ProcessBuilder(executable("redis-server"), "--version").start();
            String version = new String(process.getInputStream().readAllBytes()).trim();
            return "redis-server " + version.replaceAll(".*v=([0-9.]+).*", "$1");
        } catch (IOException | RuntimeException e) {
            return "redis-server ?";
        }
    }

    @Override
    public void close() {
        processes.forEach(ManagedProcess::close);
    }

    private static String executable(String name) {
        return ManagedProcess.findExecutable(name).orElseThrow().toString();
    }

    private static String run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("Timed out: " + command);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(command + " failed: " + output);
        }
        return output;
    }
}
