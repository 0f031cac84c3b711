package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockBackendException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A driver may report a missing table with an {@link SQLException} that has no message. The error
 * distlock gives must still be the one that names the table and the DDL to run, not a
 * {@link NullPointerException} from building it.
 */
class MissingTableWithoutMessageTest {

    private HikariDataSource h2;
    private String table;

    @BeforeEach
    void openDatabase() {
        h2 = TestDatabase.H2.pool("distlock-no-message", 2);
        table = TestDatabase.uniqueTableName("nomessage");
    }

    @AfterEach
    void closeDatabase() {
        h2.close();
    }

    @Test
    void missingLockTableIsReportedWithItsDdl() throws Exception {
        try (JdbcLockRegistry registry = JdbcLockRegistry.builder(failingWithoutMessage(h2, table))
                .tableName(table)
                .build()) {
            assertThatThrownBy(() -> registry.obtain("k").tryAcquire(Duration.ofSeconds(1)))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("jdbc")
                    .hasMessageContaining("'" + table + "'")
                    .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + table)
                    .hasMessageContaining(SQLException.class.getName());
        }
    }

    @Test
    void missingReadWriteTableIsReportedWithItsDdl() throws Exception {
        try (JdbcLockRegistry plain = JdbcLockRegistry.builder(h2)
                .tableName(table)
                .initializeSchema(true)
                .build()) {
            plain.obtain("k").acquire().close();
        }
        try (JdbcLockRegistry registry = JdbcLockRegistry.builder(failingWithoutMessage(h2, table + "_rw"))
                .tableName(table)
                .build()) {
            assertThatThrownBy(() -> registry.readWriteLock("k").readLock().tryAcquire(Duration.ZERO))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("jdbc")
                    .hasMessageContaining("'k'")
                    .hasMessageContaining(table + "_rw")
                    .hasMessageContaining("CREATE TABLE")
                    .hasMessageContaining(SQLException.class.getName());
        }
    }

    /**
     * The data source, except that any statement naming {@code table} fails when it runs, as a
     * driver might report an unknown table: SQL state 42S02 and no message.
     */
    private static DataSource failingWithoutMessage(DataSource target, String table) {
        return proxy(
                DataSource.class,
                target,
                false,
                table,
                (args, made) -> made instanceof Connection connection
                        ? proxy(Connection.class, connection, false, table, (sql, statement) -> {
                            if (statement instanceof PreparedStatement prepared) {
                                return proxy(
                                        PreparedStatement.class, prepared, namesTable(sql, table), table, (x, r) -> r);
                            }
                            if (statement instanceof Statement plain) {
                                return proxy(Statement.class, plain, false, table, (x, r) -> r);
                            }
                            return statement;
                        })
                        : made);
    }

    /**
     * Hands every call to {@code target} and its result through {@code wrap}, except that a
     * {@code prepare..} or {@code execute..} call fails without a message when its SQL names
     * {@code table} (drivers differ in which of the two finds the table missing), or when the
     * statement was prepared from such SQL ({@code failsToRun}).
     */
    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, T target, boolean failsToRun, String table, Wrapper wrap) {
        InvocationHandler handler = (self, method, args) -> {
            boolean runs =
                    method.getName().startsWith("execute") || method.getName().startsWith("prepare");
            if (runs && (failsToRun || namesTable(args, table))) {
                throw new SQLException(null, "42S02");
            }
            try {
                return wrap.apply(args, method.invoke(target, args));
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (T) Proxy.newProxyInstance(
                MissingTableWithoutMessageTest.class.getClassLoader(), new Class<?>[] {type}, handler);
    }

    private static boolean namesTable(Object[] args, String table) {
        return args != null
                && args.length > 0
                && args[0] instanceof String sql
                && sql.toLowerCase().matches("(?s).*\\b" + table.toLowerCase() + "\\b.*");
    }

    private interface Wrapper {
        Object apply(Object[] args, Object result) throws Throwable;
    }
}
