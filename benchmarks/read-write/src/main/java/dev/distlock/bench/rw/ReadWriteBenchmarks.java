package dev.distlock.bench.rw;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.bench.Benchmark;
import dev.distlock.contract.servers.EtcdProcess;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import dev.distlock.etcd.EtcdLockRegistry;
import dev.distlock.jdbc.JdbcLockRegistry;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisServers;
import dev.distlock.zookeeper.ZooKeeperLockRegistry;
import io.etcd.jetcd.Client;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Runs {@link ReadWriteBenchmark} on each backend named in the arguments (all by default: memory,
 * redis, zookeeper, etcd, jdbc) with servers of its own, and writes one Markdown table per backend,
 * {@code read-write-<backend>.md}, to the directory given first. {@code benchmarks/run.sh
 * read-write} joins them into {@code benchmarks/results/read-write.md}.
 */
public final class ReadWriteBenchmarks {

    private static final List<String> BACKENDS = List.of("memory", "redis", "zookeeper", "etcd", "jdbc");

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException(
                    "usage: ReadWriteBenchmarks <output directory> [backend...], backends " + BACKENDS);
        }
        Path out = Path.of(args[0]);
        List<String> backends = args.length > 1 ? List.of(args).subList(1, args.length) : BACKENDS;
        for (String backend : backends) {
            List<Benchmark.Result> results = switch (backend) {
                case "memory" -> memory();
                case "redis" -> redis();
                case "zookeeper" -> zooKeeper();
                case "etcd" -> etcd();
                case "jdbc" -> jdbc();
                default ->
                    throw new IllegalArgumentException("unknown backend " + backend + "; choose from " + BACKENDS);
            };
            Benchmark.write(out.resolve("read-write-" + backend + ".md"), backend, "", results);
        }
    }

    private static List<Benchmark.Result> memory() throws InterruptedException {
        MemoryLockStore store = new MemoryLockStore();
        try (MemoryLockRegistry a = MemoryLockRegistry.builder().store(store).build();
                MemoryLockRegistry b = MemoryLockRegistry.builder().store(store).build()) {
            return ReadWriteBenchmark.run("memory", a, b);
        }
    }

    /** One redis-server, two registries over one connection factory. */
    private static List<Benchmark.Result> redis() throws InterruptedException {
        try (RedisServers servers = new RedisServers()) {
            LettuceConnectionFactory factory = servers.factory(servers.start());
            try (RedisLockRegistry a = RedisLockRegistry.builder(factory).build();
                    RedisLockRegistry b = RedisLockRegistry.builder(factory).build()) {
                return ReadWriteBenchmark.run("redis", a, b);
            }
        }
    }

    /**
     * One in-process ZooKeeper server, two registries over two clients (two sessions, standing for
     * two JVMs). The server skips fsync: on a shared machine the disk, not the lock, would set every row.
     */
    private static List<Benchmark.Result> zooKeeper() throws Exception {
        System.setProperty("zookeeper.forceSync", "no");
        try (TestingServer server = new TestingServer(true);
                CuratorFramework clientA = curator(server.getConnectString());
                CuratorFramework clientB = curator(server.getConnectString());
                ZooKeeperLockRegistry a = ZooKeeperLockRegistry.builder(clientA).build();
                ZooKeeperLockRegistry b = ZooKeeperLockRegistry.builder(clientB).build()) {
            return ReadWriteBenchmark.run("zookeeper", a, b);
        }
    }

    private static CuratorFramework curator(String connectString) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, new ExponentialBackoffRetry(100, 3));
        client.start();
        if (!client.blockUntilConnected(20, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new IllegalStateException("ZooKeeper at " + connectString + " did not answer within 20 s");
        }
        return client;
    }

    /** One etcd member this benchmark starts, two registries over two clients. */
    private static List<Benchmark.Result> etcd() throws Exception {
        Path etcd = ManagedProcess.findExecutable("etcd")
                .orElseThrow(() -> new IllegalStateException("etcd is not installed (apt-get install etcd-server)"));
        Path work = Files.createTempDirectory("distlock-etcd-rw-bench");
        try (EtcdProcess server = EtcdProcess.start(etcd, "etcd", work);
                Client clientA = Client.builder().endpoints(server.clientUrl()).build();
                Client clientB = Client.builder().endpoints(server.clientUrl()).build();
                EtcdLockRegistry a = EtcdLockRegistry.builder(clientA)
                        .address(server.clientUrl())
                        .build();
                EtcdLockRegistry b = EtcdLockRegistry.builder(clientB)
                        .address(server.clientUrl())
                        .build()) {
            return ReadWriteBenchmark.run("etcd", a, b);
        }
    }

    /** H2 in-process, PostgreSQL and MariaDB on loopback (or where the DISTLOCK_*_URL variables say). */
    private static List<Benchmark.Result> jdbc() throws InterruptedException {
        List<Benchmark.Result> results = new ArrayList<>();
        String table = "bench_rw_" + UUID.randomUUID().toString().substring(0, 8);
        for (String[] database : List.of(
                new String[] {"h2", "jdbc:h2:mem:bench-rw;DB_CLOSE_DELAY=-1", "sa", ""},
                new String[] {
                    "postgresql", env("DISTLOCK_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test"), "postgres", ""
                },
                new String[] {"mariadb", env("DISTLOCK_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test"), "root", ""
                })) {
            try (HikariDataSource poolA = pool(database, "bench-rw-a");
                    HikariDataSource poolB = pool(database, "bench-rw-b");
                    LockRegistry a = JdbcLockRegistry.builder(poolA)
                            .tableName(table)
                            .initializeSchema(true)
                            .build();
                    LockRegistry b =
                            JdbcLockRegistry.builder(poolB).tableName(table).build()) {
                results.addAll(ReadWriteBenchmark.run("jdbc " + database[0].toLowerCase(Locale.ROOT), a, b));
            }
        }
        return results;
    }

    private static HikariDataSource pool(String[] database, String name) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(database[1]);
        config.setUsername(database[2]);
        config.setPassword(database[3]);
        config.setMaximumPoolSize(10);
        return new HikariDataSource(config);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private ReadWriteBenchmarks() {}
}
