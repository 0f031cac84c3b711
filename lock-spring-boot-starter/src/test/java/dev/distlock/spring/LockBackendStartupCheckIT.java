package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.FreePorts;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.servers.RequiredServer;
import dev.distlock.core.LockRegistry;
import dev.distlock.redis.RedisServers;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The start-up check: a backend that is down, refuses the credentials or lacks its table fails
 * start-up with a failure report (description and action), or only warns when told to.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockBackendStartupCheckIT {

    private static RedisServers redis;
    private static ManagedProcess passwordRedis;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
            .withPropertyValues("distributed-lock.startup-check.timeout=2s");

    @BeforeAll
    static void startRedis() {
        redis = new RedisServers();
        passwordRedis = redis.start(List.of("--requirepass", "s3cret"));
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    private static RedisConnectionFactory redisAt(int port, String password) {
        RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration("127.0.0.1", port);
        configuration.setPassword(password);
        return new LettuceConnectionFactory(configuration);
    }

    @Test
    void unreachableRedisFailsStartUpNamingTheAddressAndWhatToCheck() {
        int nothingThere = FreePorts.next();
        runner.withPropertyValues("distributed-lock.backend=redis")
                .withBean(RedisConnectionFactory.class, () -> redisAt(nothingThere, null))
                .run(context -> assertThat(StartupFailures.analysis(context))
                        .contains("The redis lock backend is not usable")
                        .contains("127.0.0.1:" + nothingThere)
                        .contains("Action: Check that Redis runs")
                        .contains("spring.data.redis.*")
                        .contains("distributed-lock.startup-check.mode=warn"));
    }

    @Test
    void redisRefusingThePasswordFailsStartUp() {
        runner.withPropertyValues("distributed-lock.backend=redis")
                .withBean(RedisConnectionFactory.class, () -> redisAt(passwordRedis.port(), "wrong"))
                .run(context -> assertThat(StartupFailures.analysis(context))
                        .contains("The redis lock backend is not usable")
                        .containsIgnoringCase("pass")
                        .contains("spring.data.redis.*"));
    }

    @Test
    void warnModeStartsWithRedisDownAndSaysSo(CapturedOutput output) {
        int nothingThere = FreePorts.next();
        runner.withPropertyValues("distributed-lock.backend=redis", "distributed-lock.startup-check.mode=warn")
                .withBean(RedisConnectionFactory.class, () -> redisAt(nothingThere, null))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockRegistry.class);
                    assertThat(output)
                            .contains("The redis lock backend is not usable; starting anyway")
                            .contains("127.0.0.1:" + nothingThere);
                });
    }

    @Test
    void unreachableZooKeeperFailsStartUp() {
        int nothingThere = FreePorts.next();
        runner.withPropertyValues(
                        "distributed-lock.backend=zookeeper",
                        "distributed-lock.zookeeper.connect-string=127.0.0.1:" + nothingThere,
                        "distributed-lock.zookeeper.session-timeout=2s")
                .run(context -> assertThat(StartupFailures.analysis(context))
                        .contains("The zookeeper lock backend is not usable")
                        .contains("127.0.0.1:" + nothingThere)
                        .contains("distributed-lock.zookeeper.connect-string"));
    }

    @Test
    void unreachableEtcdFailsStartUp() {
        int nothingThere = FreePorts.next();
        runner.withPropertyValues(
                        "distributed-lock.backend=etcd",
                        "distributed-lock.etcd.endpoints=http://127.0.0.1:" + nothingThere)
                .run(context -> assertThat(StartupFailures.analysis(context))
                        .contains("The etcd lock backend is not usable")
                        .contains("127.0.0.1:" + nothingThere)
                        .contains("distributed-lock.etcd.endpoints"));
    }

    @Test
    void missingLockTableFailsStartUpWithTheDdl() {
        runner.withPropertyValues(
                        "distributed-lock.backend=jdbc",
                        "distributed-lock.jdbc.initialize-schema=never",
                        "distributed-lock.jdbc.table-name=no_such_lock_table")
                .withBean(DataSource.class, () -> new DriverManagerDataSource("jdbc:h2:mem:startup-check", "sa", ""))
                .run(context -> assertThat(StartupFailures.analysis(context))
                        .contains("jdbc lock backend")
                        .containsIgnoringCase("no_such_lock_table")
                        .contains("CREATE TABLE")
                        .contains("distributed-lock.jdbc.initialize-schema=always"));
    }

    @Test
    void databaseRefusingTheCredentialsFailsStartUp() {
        RequiredServer.require(ManagedProcess.accepts(3306), "MariaDB", "nothing listens on 127.0.0.1:3306");
        runner.withPropertyValues("distributed-lock.backend=jdbc")
                .withBean(
                        DataSource.class,
                        () -> new DriverManagerDataSource("jdbc:mariadb://127.0.0.1:3306/test", "root", "wrong"))
                .run(context -> assertThat(StartupFailures.analysis(context))
                        .contains("jdbc lock backend")
                        .contains("Access denied")
                        .contains("spring.datasource.*"));
    }
}
