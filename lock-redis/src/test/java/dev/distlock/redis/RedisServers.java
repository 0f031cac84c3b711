package dev.distlock.redis;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.servers.RedisProcesses;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * redis-server processes for tests and benchmarks ({@link RedisProcesses}) and started Lettuce factories for them.
 * Everything started is stopped by {@link #close()}. Published in lock-redis's test-jar for the starter's tests and the
 * Redis benchmark.
 */
public final class RedisServers implements AutoCloseable {

    private final RedisProcesses processes = new RedisProcesses();
    private final List<LettuceConnectionFactory> factories = new ArrayList<>();
    private final List<ClientResources> resources = new ArrayList<>();

    /** A standalone server without persistence. */
    public ManagedProcess start() {
        return processes.start();
    }

    public ManagedProcess start(List<String> extraArgs) {
        return processes.start(extraArgs);
    }

    /** Three masters with their hash slots assigned; returns once the cluster reports ok. */
    public List<ManagedProcess> startCluster() throws Exception {
        return processes.startCluster();
    }

    /** Runs redis-cli against {@code port}; returns its output. */
    public static String cli(int port, String... args) throws Exception {
        return RedisProcesses.cli(port, args);
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
        processes.close();
    }
}
