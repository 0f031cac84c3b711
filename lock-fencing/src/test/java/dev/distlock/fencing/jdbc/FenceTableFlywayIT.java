package dev.distlock.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fence table's DDL resources work as Flyway migrations, copied as a user vendors them, the table
 * name given as the placeholder {@code table}; the store then runs over the result without creating
 * anything.
 */
class FenceTableFlywayIT {

    @TempDir
    Path migrations;

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void shippedDdlAppliedByFlywayServesTheStore(FenceDatabase database) throws IOException {
        database.require();
        String resource =
                FenceStatements.of(database.server, new FenceTableName("t")).schemaResource();
        vendor(resource, migrations.resolve("V1__distributed_lock_fence.sql"));
        String table = FenceDatabase.uniqueTableName("flyway");
        String history = FenceDatabase.uniqueTableName("flyway_history");

        try (HikariDataSource pool = database.pool("fence-flyway", 2)) {
            try {
                MigrateResult result = Flyway.configure()
                        .dataSource(pool)
                        .locations("filesystem:" + migrations)
                        .placeholders(Map.of("table", table))
                        .table(history)
                        // The test database holds other tests' tables: baseline below V1 so V1 still runs.
                        .baselineOnMigrate(true)
                        .baselineVersion("0")
                        .load()
                        .migrate();
                assertThat(result.success).isTrue();
                assertThat(result.migrationsExecuted).as("V1 from " + resource).isEqualTo(1);

                JdbcFenceStore store = JdbcFenceStore.builder(pool)
                        .tableName(table)
                        .initializeSchema(false)
                        .build();
                FencingClaim claim = new FencingClaim("jdbc", "ledger", FencingToken.of(7));
                assertThat(store.admitWrite("ledger", claim))
                        .isEqualTo(new Fence("ledger", "jdbc", "ledger", FencingToken.of(7)));
                assertThatThrownBy(() ->
                                store.admitWrite("ledger", new FencingClaim("jdbc", "ledger", FencingToken.of(6))))
                        .isInstanceOf(StaleTokenException.class);
            } finally {
                FenceDatabase.dropTables(pool, table, history);
            }
        }
    }

    /** Copies the resource out of the lock-fencing jar, byte for byte. */
    private static void vendor(String resource, Path target) throws IOException {
        try (InputStream in = FenceTableFlywayIT.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            Files.copy(in, target);
        }
    }
}
