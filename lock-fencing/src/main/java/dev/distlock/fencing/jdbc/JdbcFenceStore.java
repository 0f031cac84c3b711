package dev.distlock.fencing.jdbc;

import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FenceRule;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.FencingClaim;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/**
 * Fences in a table of the application's database, checked inside the caller's transaction. The
 * resource's row is raised and stays locked until that transaction ends, so a stale holder's
 * transaction and the next holder's never interleave, and a stale token fails the transaction.
 *
 * <p>{@link #admitWrite(String, FencingClaim)} and {@link #admitRead(String, FencingClaim)} join
 * the current Spring-managed transaction on the store's {@link DataSource} (so {@code JdbcTemplate},
 * {@code JdbcClient} and JPA writes in it are covered) and make it roll back when they refuse.
 * Outside a transaction they check and raise in one transaction of their own. The {@link
 * Connection} forms take part in the caller's own JDBC transaction. Call them first in the
 * transaction, before any read the write depends on. See {@code docs/fencing.md}.
 */
public final class JdbcFenceStore implements FenceStore {

    /** The longest lock key the table keeps (the memory backend's limit, the largest of all backends). */
    static final int MAX_LOCK_KEY_LENGTH = 4096;

    private final FenceTransactions transactions;

    private JdbcFenceStore(Builder builder) {
        DataSource dataSource = builder.dataSource instanceof TransactionAwareDataSourceProxy proxy
                ? proxy.getTargetDataSource()
                : builder.dataSource;
        this.transactions = new FenceTransactions(
                dataSource, new FenceTableName(builder.tableName), builder.initializeSchema, builder.timeout);
    }

    /** A store over the fence table in {@code dataSource}'s database. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The fence table's name. */
    public String tableName() {
        return transactions.tableName().value();
    }

    /**
     * Admits {@code claim} as a writer of {@code resource} in the current Spring transaction (or one
     * of its own when there is none). The row stays locked until that transaction ends.
     */
    @Override
    public Fence admitWrite(String resource, FencingClaim claim) {
        check(resource, claim);
        return transactions.inTransaction(
                FenceOperation.of("admitting a write to", resource, claim),
                connection -> write(connection, resource, claim));
    }

    /**
     * Admits {@code claim} as a writer of {@code resource} in the caller's JDBC transaction on
     * {@code connection} (auto-commit off). Roll that transaction back when this throws.
     */
    public Fence admitWrite(Connection connection, String resource, FencingClaim claim) {
        check(resource, claim);
        return transactions.onCallersConnection(
                connection, FenceOperation.of("admitting a write to", resource, claim), c -> write(c, resource, claim));
    }

    /**
     * Checks that {@code claim} may read {@code resource} as current, in the current Spring
     * transaction. The row is share-locked until it ends, so no newer writer raises it meanwhile.
     */
    @Override
    public void admitRead(String resource, FencingClaim claim) {
        check(resource, claim);
        transactions.inTransaction(
                FenceOperation.of("admitting a read of", resource, claim),
                connection -> read(connection, resource, claim));
    }

    /** As {@link #admitRead(String, FencingClaim)}, in the caller's JDBC transaction on {@code connection}. */
    public void admitRead(Connection connection, String resource, FencingClaim claim) {
        check(resource, claim);
        transactions.onCallersConnection(
                connection, FenceOperation.of("admitting a read of", resource, claim), c -> read(c, resource, claim));
    }

    @Override
    public Optional<Fence> fenceOf(String resource) {
        FenceRule.checkResource(resource);
        return transactions.inTransaction(
                FenceOperation.unclaimed("reading the fence of", resource),
                connection -> transactions
                        .table()
                        .statements
                        .read(
                                connection,
                                transactions.table().statements.select,
                                resource,
                                transactions.querySeconds()));
    }

    /**
     * Moves {@code resource} to {@code claim}'s lock key and backend, its highest token set to
     * {@code claim}'s, in the current transaction. Only once every writer under the old lock stopped.
     */
    @Override
    public Fence rebind(String resource, FencingClaim claim) {
        check(resource, claim);
        return transactions.inTransaction(FenceOperation.of("rebinding", resource, claim), connection -> {
            FenceStatements statements = transactions.table().statements;
            lockRow(connection, resource, claim);
            statements.update(
                    connection,
                    statements.rebind,
                    transactions.querySeconds(),
                    claim.backend(),
                    claim.lockKey(),
                    claim.token().value(),
                    resource);
            return new Fence(resource, claim.backend(), claim.lockKey(), claim.token());
        });
    }

    private Fence write(Connection connection, String resource, FencingClaim claim) throws SQLException {
        Fence current = lockRow(connection, resource, claim);
        Fence next = FenceRule.admitWrite(resource, current, claim);
        if (!next.highest().equals(current.highest())) {
            transactions
                    .table()
                    .statements
                    .update(
                            connection,
                            transactions.table().statements.raise,
                            transactions.querySeconds(),
                            next.highest().value(),
                            resource);
        }
        return next;
    }

    private Void read(Connection connection, String resource, FencingClaim claim) throws SQLException {
        FenceStatements statements = transactions.table().statements;
        // A read-only transaction may not lock rows (PostgreSQL refuses). Its check holds at its start.
        String sql = connection.isReadOnly() ? statements.select : statements.selectShared;
        FenceRule.admitRead(
                resource,
                statements
                        .read(connection, sql, resource, transactions.querySeconds())
                        .orElse(null),
                claim);
        return null;
    }

    private Fence lockRow(Connection connection, String resource, FencingClaim claim) throws SQLException {
        // Empty only when another transaction's insert of the row was rolled back while this one waited.
        for (int attempt = 0; attempt < 3; attempt++) {
            Optional<Fence> locked =
                    transactions.table().statements.lockRow(connection, resource, claim, transactions.querySeconds());
            if (locked.isPresent()) {
                return locked.get();
            }
        }
        throw new IllegalStateException(
                "The fence row of resource '" + resource + "' in table '" + transactions.tableName()
                        + "' vanished three times while being locked; is something deleting fence rows?");
    }

    private static void check(String resource, FencingClaim claim) {
        FenceRule.checkResource(resource);
        Objects.requireNonNull(claim, "claim");
        if (claim.lockKey().length() > MAX_LOCK_KEY_LENGTH) {
            throw new IllegalArgumentException("The lock key of a claim on resource '" + resource + "' has "
                    + claim.lockKey().length() + " characters; the fence table keeps at most " + MAX_LOCK_KEY_LENGTH);
        }
        if (claim.backend().length() > 64) {
            throw new IllegalArgumentException("The backend name of a claim on resource '" + resource
                    + "' has over 64 characters: " + claim.backend().substring(0, 64) + "...");
        }
    }

    /** Builds a {@link JdbcFenceStore}. */
    public static final class Builder {

        private final DataSource dataSource;
        private String tableName = FenceTableName.DEFAULT;
        private boolean initializeSchema;
        private Duration timeout = Duration.ofSeconds(10);

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The fence table. Default {@code distributed_lock_fence}. */
        public Builder tableName(String tableName) {
            this.tableName = tableName;
            return this;
        }

        /** Whether to create the fence table on first use when it is missing. Default false. */
        public Builder initializeSchema(boolean initializeSchema) {
            this.initializeSchema = initializeSchema;
            return this;
        }

        /**
         * How long one check may wait for the fence row (held by another holder's transaction) and for
         * the database. Rounded up to whole seconds. Default 10 s.
         */
        public Builder timeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("The fence store's timeout must be positive, was " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        public JdbcFenceStore build() {
            return new JdbcFenceStore(this);
        }
    }
}
