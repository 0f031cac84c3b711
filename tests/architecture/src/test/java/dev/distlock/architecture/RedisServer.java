package dev.distlock.architecture;

import dev.distlock.contract.servers.FreePorts;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.servers.RequiredServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** A redis-server child process on a free loopback port, for the path test on Redis. */
final class RedisServer implements AutoCloseable {

    private final ManagedProcess process;

    private RedisServer(ManagedProcess process) {
        this.process = process;
    }

    static RedisServer start() throws Exception {
        RequiredServer.require(
                ManagedProcess.findExecutable("redis-server").isPresent(),
                "redis-server",
                "no redis-server executable on the PATH");
        int port = FreePorts.next();
        Path dir = Files.createTempDirectory("distlock-architecture-redis");
        return new RedisServer(ManagedProcess.start(
                "redis-" + port,
                List.of(
                        ManagedProcess.findExecutable("redis-server")
                                .orElseThrow()
                                .toString(),
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--appendonly",
                        "no"),
                dir.resolve("redis-" + port),
                port,
                Duration.ofSeconds(20)));
    }

    /** A started Lettuce connection factory for this server. */
    LettuceConnectionFactory factory() {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", process.port()),
                LettuceClientConfiguration.builder()
                        .commandTimeout(Duration.ofSeconds(10))
                        .build());
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    @Override
    public void close() {
        process.close();
    }
}
