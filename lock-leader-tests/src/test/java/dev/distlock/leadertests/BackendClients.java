package dev.distlock.leadertests;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockRegistry;
import dev.distlock.etcd.EtcdLockRegistry;
import dev.distlock.jdbc.JdbcLockRegistry;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.zookeeper.ZooKeeperLockRegistry;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Registries on one server, each with its own client (connection factory, pool or session), as
 * separate instances would have. Described by a few words, so a child JVM can open the same:
 * {@code redis <port>}, {@code postgresql <url> <user> <password> <table>}, {@code zookeeper
 * <connect string>}, {@code etcd <endpoint>}. The lease is the registry's lease, or the session timeout on ZooKeeper.
 */
final class BackendClients implements AutoCloseable {

    private final List<String> spec;
    private final Duration lease;
    private final List<AutoCloseable> opened = new ArrayList<>();

    BackendClients(List<String> spec, Duration lease) {
        this.spec = List.copyOf(spec);
        this.lease = lease;
    }

    List<String> spec() {
        return spec;
    }

    Duration lease() {
        return lease;
    }

    /**
     * Clients of the same server whose lease is at least {@code atLeast}: for tests whose holders must stay valid
     * through any stall a loaded machine shows.
     */
    BackendClients withLeaseAtLeast(Duration atLeast) {
        return new BackendClients(spec, lease.compareTo(atLeast) >= 0 ? lease : atLeast);
    }

    /** A new registry with a client of its own; closed with this object. */
    LockRegistry newRegistry() {
        LockRegistry registry = switch (spec.get(0)) {
            case "redis" -> redis(Integer.parseInt(spec.get(1)));
            case "postgresql" -> postgresql(spec.get(1), spec.get(2), spec.get(3), spec.get(4));
            case "zookeeper" -> zookeeper(spec.get(1));
            case "etcd" -> etcd(spec.get(1));
            default -> throw new IllegalArgumentException("Unknown backend " + spec);
        };
        opened.add(registry);
        return registry;
    }

    private LockRegistry redis(int port) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", port),
                LettuceClientConfiguration.builder()
                        .commandTimeout(Duration.ofSeconds(5))
                        .build());
        factory.afterPropertiesSet();
        factory.start();
        opened.add(factory::destroy);
        return RedisLockRegistry.builder(factory).leaseTime(lease).build();
    }

    private LockRegistry postgresql(String url, String user, String password, String table) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(4);
        HikariDataSource dataSource = new HikariDataSource(config);
        opened.add(dataSource);
        return JdbcLockRegistry.builder(dataSource)
                .tableName(table)
                .initializeSchema(true)
                .leaseTime(lease)
                .build();
    }

    private LockRegistry zookeeper(String connectString) {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs((int) lease.toMillis())
                .connectionTimeoutMs((int) Math.min(lease.toMillis(), 2000))
                .retryPolicy(new RetryNTimes(3, 100))
                .build();
        client.start();
        opened.add(client);
        try {
            if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("No ZooKeeper connection to " + connectString);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return ZooKeeperLockRegistry.builder(client).build();
    }

    private LockRegistry etcd(String endpoint) {
        Client client = EtcdLockRegistry.requireLeader(Client.builder())
                .endpoints(endpoint)
                .build();
        opened.add(client);
        return EtcdLockRegistry.builder(client).leaseTime(lease).build();
    }

    @Override
    public void close() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
    }
}
