package dev.distlock.redis;

import dev.distlock.contract.servers.FreePorts;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.servers.RequiredServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * redis-server processes for tests and benchmarks: free loopback ports, temporary directories,
 * no persistence. Everything started is stopped by {@link #close()}. Published in lock-redis's
 * test-jar for the starter's tests and the Redis benchmark.
 */
public final class RedisServers implements AutoCloseable {

    private final List<ManagedProcess> processes = new ArrayList<>();
    private final List<LettuceConnectionFactory> factories = new ArrayList<>();
    private final List<ClientResources> resources = new ArrayList<>();
    private final Path root;

    /** Fails (CI=true) or skips the calling test when redis-server is not installed. */
    public RedisServers() {
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

    public ManagedProcess start(List<String> extraArgs) {
        return start(FreePorts.next(), extraArgs);
    }

    private ManagedProcess start(int port, List<String> extraArgs) {
        List<String> command = new ArrayList<>(List.of(
                ManagedProcess.findExecutable("redis-server").orElseThrow().toString(),
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

    /** Three masters with their slots assigned; returns once the cluster reports ok. */
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
        List<String> create = new ArrayList<>(
                List.of(ManagedProcess.findExecutable("redis-cli").orElseThrow().toString(), "--cluster", "create"));
        masters.forEach(master -> create.add(master.address()));
        create.add("--cluster-yes");
        run(create);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (ManagedProcess master : masters) {
            while (!run(List.of(
                            ManagedProcess.findExecutable("redis-cli")
                                    .orElseThrow()
                                    .toString(),
                            "-p",
                            Integer.toString(master.port()),
                            "cluster",
                            "info"))
                    .contains("cluster_state:ok")) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Redis Cluster did not reach cluster_state:ok within 30s");
                }
                Thread.sleep(100);
            }
        }
        return masters;
    }

    /** Runs redis-cli against {@code port}; returns its output. */
    public static String cli(int port, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                ManagedProcess.findExecutable("redis-cli").orElseThrow().toString(), "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        return run(command);
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

    /** A started Lettuce factory for one server, with Lettuce's default client options. */
    public LettuceConnectionFactory factory(ManagedProcess server) {
        return factory(server.port());
    }

    /** A started Lettuce factory for the server (or proxy) on loopback port {@code port}. */
    public LettuceConnectionFactory factory(int port) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", port),
                LettuceClientConfiguration.builder()
                        .commandTimeout(Duration.ofSeconds(10))
                        .build());
        return started(factory);
    }

    /**
     * A started Lettuce factory tuned as the starter tunes the client Spring Boot builds: commands
     * fail at once while disconnected ("Currently not connected"), reconnects every 50-500 ms.
     */
    public LettuceConnectionFactory failFastFactory(ManagedProcess server) {
        ClientResources resources = DefaultClientResources.builder()
                .reconnectDelay(
                        Delay.exponential(Duration.ofMillis(50), Duration.ofMillis(500), 2, TimeUnit.MILLISECONDS))
                .build();
        this.resources.add(resources);
        return started(new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", server.port()),
                LettuceClientConfiguration.builder()
                        .clientOptions(ClientOptions.builder()
                                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                                .build())
                        .clientResources(resources)
                        .commandTimeout(Duration.ofSeconds(1))
                        .build()));
    }

    public LettuceConnectionFactory clusterFactory(List<ManagedProcess> masters) {
        RedisClusterConfiguration cluster = new RedisClusterConfiguration(
                masters.stream().map(ManagedProcess::address).toList());
        return started(new LettuceConnectionFactory(
                cluster,
                LettuceClientConfiguration.builder()
                        .commandTimeout(Duration.ofSeconds(10))
                        .build()));
    }

    private LettuceConnectionFactory started(LettuceConnectionFactory factory) {
        factory.afterPropertiesSet();
        factory.start();
        factories.add(factory);
        return factory;
    }

    @Override
    public void close() {
        factories.forEach(LettuceConnectionFactory::destroy);
        resources.forEach(ClientResources::shutdown);
        processes.forEach(ManagedProcess::close);
    }
}
