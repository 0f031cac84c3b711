package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DialectTest {

    private static final TableName TABLE = new TableName("app.locks");

    private static List<Dialect> all() {
        return List.of(
                new PostgresDialect(TABLE),
                new MySqlDialect(TABLE, false),
                new MySqlDialect(TABLE, true),
                new H2Dialect(TABLE));
    }

    @Test
    void dialectFollowsTheDatabaseProductName() {
        assertThat(Dialect.of("PostgreSQL", "15.2", TABLE)).isInstanceOf(PostgresDialect.class);
        assertThat(Dialect.of("MySQL", "8.0.36", TABLE)).isInstanceOf(MySqlDialect.class);
        assertThat(Dialect.of("MySQL", "5.5.5-10.11.6-MariaDB", TABLE)).isInstanceOf(MySqlDialect.class);
        assertThat(Dialect.of("MariaDB", "10.11.6", TABLE)).isInstanceOf(MySqlDialect.class);
        assertThat(Dialect.of("H2", "2.4.240", TABLE)).isInstanceOf(H2Dialect.class);
    }

    @Test
    void unsupportedDatabaseIsNamedInTheError() {
        assertThatThrownBy(() -> Dialect.of("Oracle", "19", TABLE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Oracle")
                .hasMessageContaining("PostgreSQL, MySQL, MariaDB and H2");
    }

    @Test
    void statementsNameTheTableAndTakeNoClientTime() {
        for (Dialect dialect : all()) {
            for (String statement : List.of(
                    dialect.renew,
                    dialect.deleteLive,
                    dialect.clearLive,
                    dialect.clearOwn,
                    dialect.forceDelete,
                    dialect.forceClear,
                    dialect.holder,
                    dialect.sweep)) {
                assertThat(statement)
                        .as(dialect.getClass().getSimpleName())
                        .contains("app.locks")
                        .doesNotContain("${")
                        .doesNotContainIgnoringCase("NOW(");
            }
        }
    }

    @Test
    void releaseStatementsTouchOnlyTheOwnersRowAndForceStatementsAnyHeldRow() {
        for (Dialect dialect : all()) {
            assertThat(dialect.deleteLive).contains("owner = ?");
            assertThat(dialect.clearLive).contains("owner = ?");
            assertThat(dialect.forceDelete).contains("owner IS NOT NULL").doesNotContain("owner = ?");
            assertThat(dialect.forceClear).contains("owner IS NOT NULL").doesNotContain("owner = ?");
        }
    }

    @Test
    void leaseIsRoundedUpToTheMicrosecondNeverDown() {
        assertThat(LockRow.leaseMicros(Duration.ofNanos(1_000_001))).isEqualTo(1001);
        assertThat(LockRow.leaseMicros(Duration.ofNanos(2_900_000))).isEqualTo(2900);
        assertThat(LockRow.leaseMicros(Duration.ofMillis(1000))).isEqualTo(1_000_000);
        assertThat(LockRow.leaseMicros(Duration.ofSeconds(30, 1))).isEqualTo(30_000_001);
    }

    @Test
    void notificationChannelFitsAPostgresIdentifier() {
        assertThat(PostgresDialect.channel(TABLE)).isEqualTo("distlock.app.locks");
        assertThat(PostgresDialect.channel(new TableName("s".repeat(63) + "." + "t".repeat(63))))
                .hasSize(63);
    }

    @Test
    void schemaResourceExistsAndUsesThePlaceholder() throws Exception {
        for (Dialect dialect : all()) {
            try (var in = getClass().getClassLoader().getResourceAsStream(dialect.schemaResource())) {
                assertThat(in).as(dialect.schemaResource()).isNotNull();
                String ddl = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                assertThat(ddl)
                        .contains("CREATE TABLE IF NOT EXISTS ${table}")
                        .contains("fence")
                        .contains("holder");
            }
        }
    }

    @Test
    void cancelledLockWaitsCountAsGivingUpAndLostConnectionsDoNot() {
        Dialect postgres = new PostgresDialect(TABLE);
        Dialect mysql = new MySqlDialect(TABLE, true);
        Dialect h2 = new H2Dialect(TABLE);
        assertThat(postgres.gaveUpWaiting(new SQLException("canceling statement", "57014")))
                .isTrue();
        assertThat(postgres.gaveUpWaiting(new SQLException("lock timeout", "55P03")))
                .isTrue();
        assertThat(postgres.gaveUpWaiting(new SQLException("deadlock detected", "40P01")))
                .isTrue();
        assertThat(mysql.gaveUpWaiting(new SQLException("Lock wait timeout exceeded", "HY000", 1205)))
                .isTrue();
        assertThat(mysql.gaveUpWaiting(new SQLTimeoutException("max_statement_time exceeded", "70100", 1969)))
                .isTrue();
        assertThat(h2.gaveUpWaiting(new SQLTimeoutException("Timeout trying to lock table", "HYT00")))
                .isTrue();

        assertThat(postgres.gaveUpWaiting(new SQLException("An I/O error occurred", "08006")))
                .isFalse();
        assertThat(mysql.gaveUpWaiting(new SQLTimeoutException("socket timeout", "08000")))
                .isFalse();
        assertThat(postgres.gaveUpWaiting(new SQLException("relation does not exist", "42P01")))
                .isFalse();
        assertThat(mysql.gaveUpWaiting(new SQLException("Table doesn't exist", "42S02", 1146)))
                .isFalse();
    }
}
