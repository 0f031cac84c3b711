package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DialectTest {

    @Test
    void dialectFollowsTheDatabaseProductName() {
        assertThat(Dialect.of("PostgreSQL")).isEqualTo(Dialect.POSTGRESQL);
        assertThat(Dialect.of("MySQL")).isEqualTo(Dialect.MYSQL);
        assertThat(Dialect.of("MariaDB")).isEqualTo(Dialect.MYSQL);
        assertThat(Dialect.of("H2")).isEqualTo(Dialect.H2);
    }

    @Test
    void unsupportedDatabaseIsNamedInTheError() {
        assertThatThrownBy(() -> Dialect.of("Oracle"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Oracle")
                .hasMessageContaining("PostgreSQL, MySQL, MariaDB and H2");
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void statementsTakeNoClientTimeOnlyALeaseLength(Dialect dialect) {
        Statements sql = dialect.statements();
        for (String statement : new String[] {sql.take(), sql.renew(), sql.releaseLive(), sql.insert()}) {
            if (statement != null) {
                assertThat(statement).contains("${table}").doesNotContainIgnoringCase("NOW(");
            }
        }
        assertThat(dialect.leaseAmount(Duration.ofMillis(1500))).isGreaterThanOrEqualTo(1500);
    }

    @Test
    void leaseIsRoundedUpNeverDown() {
        assertThat(Dialect.POSTGRESQL.leaseAmount(Duration.ofNanos(1_000_001))).isEqualTo(2);
        assertThat(Dialect.H2.leaseAmount(Duration.ofMillis(1000))).isEqualTo(1000);
        // MySQL binds microseconds plus one millisecond for DATETIME(3)'s truncation of the current time.
        assertThat(Dialect.MYSQL.leaseAmount(Duration.ofMillis(1000))).isEqualTo(1_001_000);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void schemaResourceExistsAndUsesThePlaceholder(Dialect dialect) throws Exception {
        try (var in = getClass().getClassLoader().getResourceAsStream(dialect.schemaResource())) {
            assertThat(in).as(dialect.schemaResource()).isNotNull();
            String ddl = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(ddl).contains("CREATE TABLE IF NOT EXISTS ${table}").contains("fence");
        }
    }

    @Test
    void cancelledLockWaitsCountAsGivingUpAndLostConnectionsDoNot() {
        assertThat(Dialect.POSTGRESQL.gaveUpWaiting(new SQLException("canceling statement", "57014")))
                .isTrue();
        assertThat(Dialect.POSTGRESQL.gaveUpWaiting(new SQLException("lock timeout", "55P03")))
                .isTrue();
        assertThat(Dialect.POSTGRESQL.gaveUpWaiting(new SQLException("deadlock detected", "40P01")))
                .isTrue();
        assertThat(Dialect.MYSQL.gaveUpWaiting(new SQLException("Lock wait timeout exceeded", "HY000", 1205)))
                .isTrue();
        assertThat(Dialect.MYSQL.gaveUpWaiting(new SQLTimeoutException("max_statement_time exceeded", "70100", 1969)))
                .isTrue();
        assertThat(Dialect.H2.gaveUpWaiting(new SQLTimeoutException("Timeout trying to lock table", "HYT00")))
                .isTrue();

        assertThat(Dialect.POSTGRESQL.gaveUpWaiting(new SQLException("An I/O error occurred", "08006")))
                .isFalse();
        assertThat(Dialect.MYSQL.gaveUpWaiting(new SQLTimeoutException("socket timeout", "08000")))
                .isFalse();
        assertThat(Dialect.POSTGRESQL.gaveUpWaiting(new SQLException("relation does not exist", "42P01")))
                .isFalse();
        assertThat(Dialect.MYSQL.gaveUpWaiting(new SQLException("Table doesn't exist", "42S02", 1146)))
                .isFalse();
    }
}
