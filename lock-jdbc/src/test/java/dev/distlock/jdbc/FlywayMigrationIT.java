package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The DDL resources work as Flyway migrations, the way a user vendors them: copied into the
 * application's migrations as {@code V1__distributed_lock.sql}, the table name given as the
 * placeholder {@code table}, and the registry built over the result without creating anything.
 */
class FlywayMigrationIT {

    @TempDir
    Path migrations;

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void shippedSchemaAppliedByFlywayServesLocks(TestDatabase database) throws IOException, InterruptedException {
        database.require();
        String resource = Dialect.of(database.server, "", new TableName("t")).schemaResource();
        vendor(resource, migrations.resolve("V1__distributed_lock.sql"));
        String table = TestDatabase.uniqueTableName("flyway");
        String history = TestDatabase.uniqueTableName("flyway_history");

        try (HikariDataSource pool = database.pool("distlock-flyway", 2)) {
            try {
                MigrateResult result = Flyway.configure()
                        .dataSource(pool)
                        .locations("filesystem:" + migrations)
                        .placeholders(Map.of("table", table))
                        .table(history)
                        // The test database holds other tests' tables, like the database of an
                        // application that adopts Flyway late: baseline below V1 so V1 still runs.
                        .baselineOnMigrate(true)
                        .baselineVersion("0")
                        .load()
                        .migrate();
                assertThat(result.success).isTrue();
                assertThat(result.migrationsExecuted).as("V1 from " + resource).isEqualTo(1);

                try (JdbcLockRegistry registry = JdbcLockRegistry.builder(pool)
                        .tableName(table)
                        .initializeSchema(false)
                        .build()) {
                    assertThat(registry.tableName()).isEqualTo(table);
                    FencingToken first;
                    try (LockHandle handle = registry.obtain("flyway").acquire()) {
                        first = handle.token();
                        assertThat(handle.isValid()).isTrue();
                        assertThat(registry.obtain("flyway-other").tryAcquire(Duration.ZERO))
                                .hasValueSatisfying(LockHandle::close);
                    }
                    assertThat(ServerStateIT.rows(pool, table))
                            .as("released rows are deleted")
                            .isZero();
                    try (LockHandle again = registry.obtain("flyway").acquire()) {
                        assertThat(again.token().isNewerThan(first))
                                .as("the token rises although the row was deleted")
                                .isTrue();
                    }
                }
            } finally {
                database.dropTable(pool, table);
                database.dropTable(pool, history);
            }
        }
    }

    /** Copies the resource out of the lock-jdbc jar, byte for byte, as a user would vendor it. */
    private static void vendor(String resource, Path target) throws IOException {
        try (InputStream in = FlywayMigrationIT.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            Files.copy(in, target);
        }
    }
}
