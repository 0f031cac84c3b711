package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.etcd.EtcdLockRegistry;
import dev.distlock.jdbc.JdbcLockRegistry;
import dev.distlock.zookeeper.ZooKeeperLockRegistry;
import io.etcd.jetcd.Client;
import java.time.Duration;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

class DistributedLockAutoConfigurationTest {

    private static final String[] ALL_BACKEND_PACKAGES = {
        "dev.distlock.jdbc", "dev.distlock.redis", "dev.distlock.zookeeper", "dev.distlock.etcd"
    };

    private static TestingServer zookeeper;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class));

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = new TestingServer(true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zookeeper.close();
    }

    /** Only the given backends' modules stay on the classpath. */
    private static FilteredClassLoader onlyBackends(String... kept) {
        return new FilteredClassLoader(java.util.Arrays.stream(ALL_BACKEND_PACKAGES)
                .filter(p -> java.util.Arrays.stream(kept).noneMatch(k -> p.endsWith("." + k)))
                .toArray(String[]::new));
    }

    private static String startupFailure(AssertableApplicationContext context) {
        return StartupFailures.analysis(context);
    }

    @Test
    void usesMemoryWhenNoBackendModuleIsOnTheClasspath() {
        runner.withClassLoader(onlyBackends()).run(context -> {
            assertThat(context).hasSingleBean(LockRegistry.class);
            assertThat(context.getBean(LockRegistry.class)).isInstanceOf(MemoryLockRegistry.class);
        });
    }

    @Test
    void picksTheOnlyBackendModuleOnTheClasspath() {
        runner.withClassLoader(onlyBackends("jdbc"))
                .withUserConfiguration(H2Config.class)
                .run(context -> assertThat(context.getBean(LockRegistry.class)).isInstanceOf(JdbcLockRegistry.class));
        runner.withClassLoader(onlyBackends("zookeeper"))
                .withPropertyValues("distributed-lock.zookeeper.connect-string=" + zookeeper.getConnectString())
                .run(context ->
                        assertThat(context.getBean(LockRegistry.class)).isInstanceOf(ZooKeeperLockRegistry.class));
    }

    @Test
    void severalBackendModulesAndNoChoiceFailsListingTheChoices() {
        runner.withClassLoader(onlyBackends("jdbc", "zookeeper", "etcd"))
                .run(context -> assertThat(startupFailure(context))
                        .contains("Several lock backends are on the classpath")
                        .contains("lock-jdbc", "lock-zookeeper", "lock-etcd")
                        .contains("Set distributed-lock.backend to one of: zookeeper, etcd, jdbc, memory"));
    }

    @Test
    void backendPropertyChoosesJdbcOverTheApplicationsDataSource() {
        runner.withUserConfiguration(H2Config.class)
                .withPropertyValues("distributed-lock.backend=jdbc")
                .run(context -> {
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    assertThat(registry).isInstanceOf(JdbcLockRegistry.class);
                    try (LockHandle handle =
                            registry.obtain("order:1").tryAcquire(Duration.ZERO).orElseThrow()) {
                        JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                        assertThat(jdbc.queryForObject("select count(*) from distributed_lock", Integer.class))
                                .isEqualTo(1);
                        assertThat(handle.token().value()).isPositive();
                    }
                });
    }

    @Test
    void backendPropertyChoosesZooKeeperWithACuratorBuiltFromTheProperties() {
        runner.withPropertyValues(
                        "distributed-lock.backend=zookeeper",
                        "distributed-lock.zookeeper.connect-string=" + zookeeper.getConnectString(),
                        "distributed-lock.zookeeper.root-path=/locks-from-properties")
                .run(context -> {
                    assertThat(context.getBean(LockRegistry.class)).isInstanceOf(ZooKeeperLockRegistry.class);
                    ZooKeeperLockRegistry registry = context.getBean(ZooKeeperLockRegistry.class);
                    assertThat(registry.rootPath()).isEqualTo("/locks-from-properties");
                    CuratorFramework client = context.getBean(CuratorFramework.class);
                    assertThat(client.getState()).isEqualTo(CuratorFrameworkState.STARTED);
                    try (LockHandle handle = registry.obtain("k")
                            .tryAcquire(Duration.ofSeconds(5))
                            .orElseThrow()) {
                        assertThat(handle.isValid()).isTrue();
                    }
                });
    }

    @Test
    void applicationsCuratorFrameworkIsReusedAndNotClosed() {
        CuratorFramework own = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100));
        own.start();
        try {
            runner.withBean("myCurator", CuratorFramework.class, () -> own, d -> d.setDestroyMethodName(""))
                    .withPropertyValues("distributed-lock.backend=zookeeper")
                    .run(context -> {
                        assertThat(context).getBeans(CuratorFramework.class).containsOnlyKeys("myCurator");
                        assertThat(context.getBean(LockRegistry.class)).isInstanceOf(ZooKeeperLockRegistry.class);
                    });
            assertThat(own.getState()).isEqualTo(CuratorFrameworkState.STARTED);
        } finally {
            own.close();
        }
    }

    @Test
    void backendPropertyChoosesEtcdWithAClientBuiltFromTheProperties() {
        // Wiring only: no etcd listens there, so the start-up check is off.
        runner.withPropertyValues(
                        "distributed-lock.backend=etcd",
                        "distributed-lock.startup-check.mode=off",
                        "distributed-lock.etcd.endpoints=http://127.0.0.1:23790",
                        "distributed-lock.etcd.namespace=/app-locks/",
                        "distributed-lock.etcd.username=app",
                        "distributed-lock.etcd.password=secret")
                .run(context -> {
                    assertThat(context.getBean(LockRegistry.class)).isInstanceOf(EtcdLockRegistry.class);
                    assertThat(context.getBean(EtcdLockRegistry.class).namespace())
                            .isEqualTo("/app-locks/");
                    assertThat(context).hasSingleBean(Client.class);
                });
    }

    @Test
    void applicationsEtcdClientIsReused() {
        Client own = Client.builder().endpoints("http://127.0.0.1:23790").build();
        try {
            runner.withBean("myEtcd", Client.class, () -> own, d -> d.setDestroyMethodName(""))
                    .withPropertyValues("distributed-lock.backend=etcd", "distributed-lock.startup-check.mode=off")
                    .run(context -> {
                        assertThat(context).getBeans(Client.class).containsOnlyKeys("myEtcd");
                        assertThat(context.getBean(LockRegistry.class)).isInstanceOf(EtcdLockRegistry.class);
                    });
        } finally {
            own.close();
        }
    }

    @Test
    void etcdTlsWithUnreadableCaFileFailsNamingTheProperty() {
        runner.withPropertyValues("distributed-lock.backend=etcd", "distributed-lock.etcd.tls.ca-file=/no/such/ca.pem")
                .run(context -> assertThat(startupFailure(context))
                        .contains("distributed-lock.etcd.tls.ca-file")
                        .contains("/no/such/ca.pem"));
    }

    @Test
    void backendPropertyChoosesMemoryEvenWithBackendModulesPresent() {
        runner.withPropertyValues("distributed-lock.backend=MEMORY")
                .run(context -> assertThat(context.getBean(LockRegistry.class)).isInstanceOf(MemoryLockRegistry.class));
    }

    @Test
    void sharedPropertiesReachTheRegistry() {
        runner.withPropertyValues(
                        "distributed-lock.backend=memory",
                        "distributed-lock.key-prefix=shop:",
                        "distributed-lock.lease-time=12s",
                        "distributed-lock.writer-grace=25ms",
                        "distributed-lock.answer-budget=3s")
                .run(context -> {
                    LockRegistrySupport registry = context.getBean(LockRegistrySupport.class);
                    assertThat(registry.options().keyPrefix()).isEqualTo("shop:");
                    assertThat(registry.options().leaseTime()).isEqualTo(Duration.ofSeconds(12));
                    assertThat(registry.options().writerGrace()).isEqualTo(Duration.ofMillis(25));
                    assertThat(registry.options().answerBudget()).isEqualTo(Duration.ofSeconds(3));
                });
    }

    @Test
    void answerBudgetDefaultsToTheRegistrysDefault() {
        runner.withPropertyValues("distributed-lock.backend=memory")
                .run(context -> assertThat(context.getBean(LockRegistrySupport.class)
                                .options()
                                .answerBudget())
                        .isEqualTo(RegistryOptions.DEFAULT_ANSWER_BUDGET));
    }

    @Test
    void unknownBackendFailsListingTheValidValues() {
        runner.withPropertyValues("distributed-lock.backend=foo")
                .run(context -> assertThat(startupFailure(context))
                        .contains("distributed-lock.backend=foo is not a lock backend")
                        .contains("redis, zookeeper, etcd, jdbc, memory"));
    }

    @Test
    void chosenBackendMissingFromTheClasspathNamesTheDependency() {
        runner.withClassLoader(onlyBackends("jdbc"))
                .withPropertyValues("distributed-lock.backend=zookeeper")
                .run(context -> assertThat(startupFailure(context))
                        .contains("distributed-lock.backend=zookeeper")
                        .contains("dev.distlock:lock-zookeeper"));
    }

    @Test
    void jdbcWithoutDataSourceSaysWhatToAdd() {
        runner.withPropertyValues("distributed-lock.backend=jdbc")
                .run(context -> assertThat(startupFailure(context))
                        .contains("needs one DataSource bean")
                        .contains("spring.datasource.url"));
    }

    @Test
    void jdbcNeverInitializingSchemaFailsWhenTheTableIsMissing() {
        runner.withUserConfiguration(H2Config.class)
                .withPropertyValues(
                        "distributed-lock.backend=jdbc",
                        "distributed-lock.jdbc.initialize-schema=never",
                        "distributed-lock.jdbc.table-name=app_locks")
                .run(context -> assertThat(startupFailure(context)).containsIgnoringCase("app_locks"));
    }

    @ParameterizedTest
    @CsvSource({
        "lease-time, -5s, must be positive",
        "writer-grace, -10ms, must be zero or positive",
        "answer-budget, 0s, must be positive"
    })
    void durationOutOfRangeFailsNamingThePropertyAndTheRule(String property, String value, String rule) {
        runner.withPropertyValues("distributed-lock.backend=memory", "distributed-lock." + property + "=" + value)
                .run(context -> assertThat(startupFailure(context))
                        .contains("distributed-lock." + property + " " + rule)
                        .contains("'" + value + "'"));
    }

    @Test
    void negativeWaitTimeFailsNamingTheProperty() {
        runner.withPropertyValues("distributed-lock.backend=memory", "distributed-lock.wait-time=-1s")
                .run(context -> assertThat(startupFailure(context)).contains("distributed-lock.wait-time"));
    }

    @Test
    void zeroZooKeeperSessionTimeoutFailsNamingTheProperty() {
        runner.withPropertyValues("distributed-lock.backend=zookeeper", "distributed-lock.zookeeper.session-timeout=0s")
                .run(context -> assertThat(startupFailure(context))
                        .contains("distributed-lock.zookeeper.session-timeout must be positive"));
    }

    @Test
    void applicationsOwnRegistryMakesTheStarterBackOff() {
        MemoryLockRegistry own = new MemoryLockRegistry();
        // jdbc without a DataSource would fail start-up if the starter built its own registry.
        runner.withBean("myRegistry", LockRegistry.class, () -> own)
                .withPropertyValues("distributed-lock.backend=jdbc")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).getBeans(LockRegistry.class).containsOnlyKeys("myRegistry");
                });
    }

    @Test
    void registryIsClosedWithTheContext() {
        MemoryLockRegistry[] created = new MemoryLockRegistry[1];
        runner.withPropertyValues("distributed-lock.backend=memory")
                .run(context -> created[0] = context.getBean(MemoryLockRegistry.class));
        org.assertj.core.api.Assertions.assertThatIllegalStateException()
                .isThrownBy(() -> created[0].obtain("k"))
                .withMessageContaining("closed");
    }

    @Configuration(proxyBeanMethods = false)
    static class H2Config {

        @Bean
        DataSource dataSource() {
            return new EmbeddedDatabaseBuilder()
                    .setType(EmbeddedDatabaseType.H2)
                    .generateUniqueName(true)
                    .build();
        }
    }
}
