package dev.distlock.fencingharness;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import dev.distlock.fencing.jdbc.FencedUpdate;
import dev.distlock.fencing.jdbc.JdbcFenceStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * The ledger as a row of a PostgreSQL table. {@code sql-tx}: one JDBC transaction that admits the
 * claim with {@link JdbcFenceStore} first (raising and locking the fence row), then reads and
 * writes. {@code sql-column}: the row keeps the highest token beside the data and the write is a
 * {@link FencedUpdate}; the read before it is plain.
 */
final class SqlLedgers {

    static final String TABLE = "fencing_harness_ledger";
    static final String FENCE_TABLE = "fencing_harness_fence";

    private SqlLedgers() {}

    static Ledger open(String store, String url, String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("postgres");
        config.setMaximumPoolSize(4);
        HikariDataSource dataSource = new HikariDataSource(config);
        return switch (store) {
            case "sql-tx" -> new Transactional(dataSource, name);
            case "sql-column" -> new Column(dataSource, name);
            default -> {
                dataSource.close();
                throw new IllegalArgumentException("Unknown store " + store);
            }
        };
    }

    /** Creates the ledger table and the ledger's empty row. */
    static void prepare(DataSource dataSource, String name) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS " + TABLE
                    + " (name VARCHAR(200) PRIMARY KEY, entries TEXT NOT NULL, last_token BIGINT NOT NULL)");
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO " + TABLE + " (name, entries, last_token) VALUES (?, '', 0)")) {
                insert.setString(1, name);
                insert.executeUpdate();
            }
        }
    }

    private abstract static class Row implements Ledger {

        final HikariDataSource dataSource;
        final String name;

        Row(HikariDataSource dataSource, String name) {
            this.dataSource = dataSource;
            this.name = name;
        }

        String read(Connection connection) throws SQLException {
            try (PreparedStatement select =
                    connection.prepareStatement("SELECT entries FROM " + TABLE + " WHERE name = ?")) {
                select.setString(1, name);
                try (ResultSet rs = select.executeQuery()) {
                    if (!rs.next()) {
                        throw new IllegalStateException("No ledger row " + name);
                    }
                    return rs.getString(1);
                }
            }
        }

        void write(Connection connection, String entries) throws SQLException {
            try (PreparedStatement update =
                    connection.prepareStatement("UPDATE " + TABLE + " SET entries = ? WHERE name = ?")) {
                update.setString(1, entries);
                update.setString(2, name);
                update.executeUpdate();
            }
        }

        @Override
        public List<String> entries() throws SQLException {
            try (Connection connection = dataSource.getConnection()) {
                return Ledger.split(read(connection));
            }
        }

        @Override
        public void close() {
            dataSource.close();
        }
    }

    /** A ledger whose store creates its table on first use. */
    interface Warmable {
        void warmUp();
    }

    private static final class Transactional extends Row implements Warmable {

        private final JdbcFenceStore fences;

        Transactional(HikariDataSource dataSource, String name) {
            super(dataSource, name);
            fences = JdbcFenceStore.builder(dataSource)
                    .tableName(FENCE_TABLE)
                    .initializeSchema(true)
                    .timeout(Duration.ofSeconds(60))
                    .build();
        }

        @Override
        public void warmUp() {
            fences.fenceOf("ledger:" + name);
        }

        @Override
        public boolean append(FencingClaim claim, String op, Runnable afterRead) throws SQLException {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(false);
                try {
                    if (claim != null) {
                        fences.admitWrite(connection, "ledger:" + name, claim);
                    }
                    String entries = read(connection);
                    afterRead.run();
                    write(connection, Ledger.join(entries, op));
                    connection.commit();
                    return true;
                } catch (StaleTokenException refused) {
                    connection.rollback();
                    return false;
                } catch (SQLException | RuntimeException e) {
                    connection.rollback();
                    throw e;
                } finally {
                    connection.setAutoCommit(true);
                }
            }
        }
    }

    private static final class Column extends Row {

        Column(HikariDataSource dataSource, String name) {
            super(dataSource, name);
        }

        @Override
        public boolean append(FencingClaim claim, String op, Runnable afterRead) throws SQLException {
            try (Connection connection = dataSource.getConnection()) {
                String entries = read(connection);
                afterRead.run();
                if (claim == null) {
                    write(connection, Ledger.join(entries, op));
                    return true;
                }
                try {
                    FencedUpdate.table(TABLE)
                            .set("entries", Ledger.join(entries, op))
                            .where("name", name)
                            .execute(connection, claim);
                    return true;
                } catch (StaleTokenException refused) {
                    return false;
                }
            }
        }
    }
}
