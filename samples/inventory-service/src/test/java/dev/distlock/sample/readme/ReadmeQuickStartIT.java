package dev.distlock.sample.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.EtcdProcess;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.servers.RequiredServer;
import dev.distlock.redis.RedisServers;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Builds a new project from the README's quick start for each backend, as a user would paste
 * it (Spring Boot's parent, the README's BOM, dependencies, Java files and application.yml), and
 * starts it against a real server. Only the server's address is passed on the command line. The
 * README's test-support example (its job and its test) and its Kotlin example (dependencies, build
 * setup and source) are built the same way, as written: the test is run, the Kotlin beans are called.
 */
class ReadmeQuickStartIT {

    private static final String BOOT_VERSION = System.getProperty("spring-boot.version", "4.1.1");
    private static final String POSTGRES_URL = "jdbc:postgresql://127.0.0.1:5432/test";

    private final ReadmeSnippets readme = ReadmeSnippets.load();

    @TempDir
    Path dir;

    @Test
    void redisQuickStartStartsAndLocks() {
        try (RedisServers servers = new RedisServers()) {
            ManagedProcess redis = servers.start();
            buildAndStart("redis", List.of("--spring.data.redis.port=" + redis.port()));
        }
    }

    @Test
    void postgresQuickStartCreatesItsTableOnTheFirstStartAndLocks() throws Exception {
        RequiredServer.require(ManagedProcess.accepts(5432), "PostgreSQL", "nothing listens on 127.0.0.1:5432");
        String table = "quickstart_locks_" + ProcessHandle.current().pid();
        dropTable(table);
        try {
            // The README's default creates the missing table: the first start on a fresh database works.
            buildAndStart("jdbc", List.of("--distributed-lock.jdbc.table-name=" + table));
            assertThat(tableExists(table)).isTrue();
        } finally {
            dropTable(table);
        }
    }

    @Test
    void zooKeeperQuickStartStartsAndLocks() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true)) {
            buildAndStart(
                    "zookeeper",
                    List.of("--distributed-lock.zookeeper.connect-string=" + zookeeper.getConnectString()));
        }
    }

    @Test
    void etcdQuickStartStartsAndLocks() {
        try (ManagedProcess etcd = startEtcd()) {
            buildAndStart("etcd", List.of("--distributed-lock.etcd.endpoints=http://127.0.0.1:" + etcd.port()));
        }
    }

    @Test
    void testSupportExampleRunsAsWritten() {
        QuickStartProject project = QuickStartProject.createTestSupport(dir, readme, BOOT_VERSION);
        QuickStartProject.Result test = project.test();
        assertThat(test.exitCode())
                .as("mvn test of the README's test-support example:\n%s", test.output())
                .isZero();
        assertThat(project.testReport("com.example.payments.PaymentJobTest"))
                .contains("tests=\"3\"")
                .contains("failures=\"0\"")
                .contains("errors=\"0\"")
                .contains("skipped=\"0\"");
    }

    @Test
    void kotlinExampleBuildsWithItsSetupAndLocks() {
        QuickStartProject project = QuickStartProject.createKotlin(dir, readme, BOOT_VERSION);
        QuickStartProject.Result build = project.build();
        assertThat(build.exitCode())
                .as("mvn compile of the README's Kotlin project:\n%s", build.output())
                .isZero();
        QuickStartProject.Result run = project.start("com.example.orders.KotlinQuickStartApplicationKt", List.of());
        assertThat(run.output())
                .as("the README's Kotlin application (exit code %d)", run.exitCode())
                .contains(QuickStartProject.DONE + " reserved=2 restock-token=")
                .contains("report=[SKU-1 restocked under token ");
        assertThat(run.exitCode()).isZero();
    }

    private void buildAndStart(String backend, List<String> serverAddress) {
        QuickStartProject project =
                QuickStartProject.create(dir, readme, backend, BOOT_VERSION, BOOT_VERSION.startsWith("3."));
        QuickStartProject.Result build = project.build();
        assertThat(build.exitCode())
                .as("mvn compile of the README's %s project:\n%s", backend, build.output())
                .isZero();
        QuickStartProject.Result run = project.start("com.example.orders.QuickStartApplication", serverAddress);
        assertThat(run.output())
                .as("the README's %s application (exit code %d)", backend, run.exitCode())
                .contains(QuickStartProject.DONE + " token=")
                .contains("reports=daily#")
                .doesNotContain("APPLICATION FAILED TO START");
        assertThat(run.exitCode()).isZero();
    }

    private ManagedProcess startEtcd() {
        return EtcdProcess.start("etcd-quickstart", dir).process();
    }

    private static boolean tableExists(String table) throws Exception {
        try (Connection connection = DriverManager.getConnection(POSTGRES_URL, "postgres", "postgres");
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(
                        "select count(*) from information_schema.tables where table_name = '" + table + "'")) {
            rs.next();
            return rs.getInt(1) == 1;
        }
    }

    private static void dropTable(String table) throws Exception {
        try (Connection connection = DriverManager.getConnection(POSTGRES_URL, "postgres", "postgres");
                Statement statement = connection.createStatement()) {
            statement.execute("drop table if exists " + table);
        }
    }
}
