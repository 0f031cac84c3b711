package dev.distlock.architecture;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.servers.RedisProcesses;
import java.time.Duration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** A redis-server child process on a free loopback port and a Lettuce connection factory for it. */
final class RedisServer implements AutoCloseable {

    private final RedisProcesses processes = new RedisProcesses();
    private final ManagedProcess process = processes.start();

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
        processes.close();
    }
}
