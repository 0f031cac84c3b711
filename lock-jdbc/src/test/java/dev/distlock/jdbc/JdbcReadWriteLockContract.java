package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.ReadWriteLockContract;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The read/write contract on one database, plus what is particular to the read/write table.
 * Registries alternate between two connection pools, standing for two JVMs.
 */
abstract class JdbcReadWriteLockContract extends ReadWriteLockContract {

    private static Fixture fixture;
    private int created;

    private record Fixture(String table, HikariDataSource poolA, HikariDataSource poolB) {}

    protected abstract TestDatabase database();

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        Fixture f = fixture();
        DataSource pool = created++ % 2 == 0 ? f.poolA : f.poolB;
        return JdbcLockRegistry.builder(pool)
                .tableName(f.table)
                .options(options)
                .build();
    }

    private Fixture fixture() {
        database().require();
        if (fixture == null) {
            String table = TestDatabase.uniqueTableName("rw");
            HikariDataSource poolA = database().pool("distlock-rw-a", 8);
            HikariDataSource poolB = database().pool("distlock-rw-b", 8);
            try (JdbcLockRegistry setUp = TestDatabase.created(JdbcLockRegistry.builder(poolA)
                    .tableName(table)
                    .initializeSchema(true)
                    .build())) {
                // The lock table is created by the start-up check, the read/write table on first use.
                setUp.readWriteLock("set-up")
                        .readLock()
                        .tryAcquire(java.time.Duration.ZERO)
                        .orElseThrow()
                        .close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            fixture = new Fixture(table, poolA, poolB);
        }
        return fixture;
    }

    @AfterAll
    static void closePools() {
        if (fixture != null) {
            fixture.poolA.close();
            fixture.poolB.close();
            fixture = null;
        }
    }

    @Test
    void releasedKeysLeaveNoRows() throws Exception {
        String key = key();
        FencedReadWriteLock lock = registryA.readWriteLock(key);
        try (LockHandle write = lock.writeLock().acquire();
                LockHandle read = lock.readLock().acquire()) {
            assertThat(rowsOf(key)).isPositive();
        }
        lock.readLock().acquire().close();
        assertThat(rowsOf(key)).isZero();
    }

    @Test
    void registryThatNeverUsesReadWriteLocksNeedsNoTable() throws Exception {
        String table = TestDatabase.uniqueTableName("plain");
        try (JdbcLockRegistry plain = JdbcLockRegistry.builder(fixture().poolA)
                .tableName(table)
                .initializeSchema(true)
                .build()) {
            plain.obtain("k").acquire().close();
        }
        try (JdbcLockRegistry withoutTable =
                JdbcLockRegistry.builder(fixture().poolA).tableName(table).build()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> withoutTable.readWriteLock("k").readLock().tryAcquire(java.time.Duration.ZERO))
                    .isInstanceOf(dev.distlock.core.LockBackendException.class)
                    .hasMessageContaining("jdbc")
                    .hasMessageContaining("'k'")
                    .hasMessageContaining(table + "_rw")
                    .hasMessageContaining("CREATE TABLE");
        }
    }

    private int rowsOf(String key) throws Exception {
        try (Connection connection = fixture().poolB.getConnection();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT COUNT(*) FROM " + fixture().table + "_rw WHERE lock_key = ?")) {
            select.setString(1, key);
            try (ResultSet count = select.executeQuery()) {
                count.next();
                return count.getInt(1);
            }
        }
    }
}
