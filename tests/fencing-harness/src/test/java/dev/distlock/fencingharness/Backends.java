package dev.distlock.fencingharness;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.etcd.EtcdLockRegistry;
import dev.distlock.jdbc.JdbcLockRegistry;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.zookeeper.ZooKeeperLockRegistry;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** A lock registry of one backend, with the clients it needs; closing it closes them. */
final class Backends implements AutoCloseable {

    /** The lease of every hold (for ZooKeeper: the session timeout). */
    static final Duration LEASE = Duration.ofMillis(1500);

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final LockRegistry registry;

    Backends(String backend, String address) throws Exception {
        registry = switch (backend) {
            case "memory" -> MemoryLockRegistry.builder().leaseTime(LEASE).build();
            case "redis" -> {
                String[] hostPort = address.split(":");
                LettuceConnectionFactory factory = new LettuceConnectionFactory(
                        new RedisStandaloneConfiguration(hostPort[0], Integer.parseInt(hostPort[1])),
                        LettuceClientConfiguration.builder()
                                .commandTimeout(Duration.ofSeconds(10))
                                .build());
                factory.afterPropertiesSet();
                factory.start();
                closeables.add(factory::destroy);
                yield RedisLockRegistry.builder(factory).leaseTime(LEASE).build();
            }
            case "zookeeper" -> {
                CuratorFramework client = CuratorFrameworkFactory.builder()
                        .connectString(address)
                        .sessionTimeoutMs((int) LEASE.toMillis())
                        .connectionTimeoutMs(5000)
                        .retryPolicy(new RetryNTimes(3, 100))
                        .build();
                client.start();
                client.blockUntilConnected();
                closeables.add(client);
                yield ZooKeeperLockRegistry.builder(client).build();
            }
            case "etcd" -> {
                Client client = Client.builder().endpoints("http://" + address).build();
                closeables.add(client);
                // A loaded machine: a JVM's first etcd calls load jetcd's classes, which can take seconds.
                yield EtcdLockRegistry.builder(client)
                        .address(address)
                        .leaseTime(LEASE)
                        .requestTimeout(Duration.ofSeconds(15))
                        .build();
            }
            case "postgresql" -> {
                HikariConfig config = new HikariConfig();
                config.setJdbcUrl(address);
                config.setUsername("postgres");
                config.setMaximumPoolSize(4);
                HikariDataSource dataSource = new HikariDataSource(config);
                closeables.add(dataSource);
                yield JdbcLockRegistry.builder(dataSource)
                        .tableName("fencing_harness_locks")
                        .initializeSchema(true)
                        .leaseTime(LEASE)
                        .build();
            }
            default -> throw new IllegalArgumentException("Unknown backend " + backend);
        };
    }

    LockRegistry registry() {
        return registry;
    }

    @Override
    public void close() throws Exception {
        registry.close();
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }
}
