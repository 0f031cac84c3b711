package dev.distlock.spring.actuate;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.jdbc.JdbcLockRegistry;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** Against the local PostgreSQL (127.0.0.1:5432, database test), in a lock table of its own. */
class PostgresHolderEndpointIT extends HolderEndpointContract {

    private static final String TABLE =
            "endpoint_lock_" + Math.abs(ThreadLocalRandom.current().nextInt());

    private static final DataSource database =
            new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");

    @AfterAll
    static void dropTable() {
        new JdbcTemplate(database).execute("DROP TABLE IF EXISTS " + TABLE);
    }

    @Override
    ApplicationContextRunner application(ApplicationContextRunner runner) {
        return runner.withPropertyValues(
                        "distributed-lock.backend=jdbc",
                        "distributed-lock.jdbc.table-name=" + TABLE,
                        "distributed-lock.jdbc.initialize-schema=always")
                .withBean(DataSource.class, () -> database);
    }

    @Override
    LockRegistry otherInstance() {
        return JdbcLockRegistry.builder(database)
                .tableName(TABLE)
                .initializeSchema(true)
                .options(RegistryOptions.defaults().withApplicationName(OTHER_APPLICATION))
                .build();
    }
}
