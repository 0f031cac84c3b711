package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.servers.FreePorts;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The start-up check with the JDBC backend and a database that is down: the application starts
 * with a WARN when told to, and otherwise fails with a failure report, as for the other backends.
 */
@ExtendWith(OutputCaptureExtension.class)
class JdbcStartupCheckTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
            .withPropertyValues("distributed-lock.backend=jdbc", "distributed-lock.startup-check.timeout=2s");

    /** A PostgreSQL DataSource whose database is down: nothing listens on its port. */
    private static DataSource databaseDownAt(int port) {
        return new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:" + port + "/test", "postgres", "");
    }

    @Test
    void unreachableDatabaseFailsStartUpNamingTheAddressAndWhatToCheck() {
        int nothingThere = FreePorts.next();
        runner.withBean(DataSource.class, () -> databaseDownAt(nothingThere))
                .run(context -> assertThat(StartupFailures.analysis(context))
                        .contains("The jdbc lock backend is not usable")
                        .contains("127.0.0.1:" + nothingThere)
                        .contains("Action: Check that the database runs")
                        .contains("spring.datasource.*")
                        .contains("distributed-lock.startup-check.mode=warn"));
    }

    @Test
    void warnModeStartsWithTheDatabaseDownAndLockCallsSayWhy(CapturedOutput output) {
        int nothingThere = FreePorts.next();
        runner.withPropertyValues("distributed-lock.startup-check.mode=warn")
                .withBean(DataSource.class, () -> databaseDownAt(nothingThere))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockRegistry.class);
                    assertThat(output)
                            .contains("The jdbc lock backend is not usable; starting anyway")
                            .contains("127.0.0.1:" + nothingThere);
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    assertThatThrownBy(() -> registry.obtain("order:1").tryAcquire(Duration.ofSeconds(1)))
                            .isInstanceOf(LockBackendException.class)
                            .hasMessageContaining("order:1")
                            .hasMessageContaining("127.0.0.1:" + nothingThere)
                            .hasMessageContaining("Check that the database is running");
                });
    }

    @Test
    void warnModeStartsWithTheDatabaseDownWhenTheSchemaIsCreatedOnlyInMemory(CapturedOutput output) {
        int nothingThere = FreePorts.next();
        runner.withPropertyValues(
                        "distributed-lock.startup-check.mode=warn", "distributed-lock.jdbc.initialize-schema=embedded")
                .withBean(DataSource.class, () -> databaseDownAt(nothingThere))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockRegistry.class);
                    assertThat(output).contains("The jdbc lock backend is not usable; starting anyway");
                });
    }
}
