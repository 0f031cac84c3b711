/**
 * The JDBC backend: a lock table in PostgreSQL, MySQL/MariaDB or H2. Only {@link
 * dev.distlock.jdbc.JdbcLockRegistry} and its builder are public. The contract it keeps is
 * {@code docs/contract.md} (read/write locks: {@code docs/read-write-locks.md}); the DDL per database is in {@code
 * dev/distlock/jdbc/schema-*.sql} on the classpath.
 *
 * <p>Roles: {@code Dialect} (one per database) owns the statements; {@link
 * dev.distlock.jdbc.LockDatabase} runs one bounded call on its own connection; {@link
 * dev.distlock.jdbc.LockTable} is the lock operations; {@code LockSchema} checks
 * and creates the table; {@code LockTableSetup} connects, checks the table and starts what runs
 * beside it on first use (so a registry can be built while the database is down, and a failed
 * set-up is tried again by the next call); {@code JdbcLockBackend} is the lock logic; {@link
 * dev.distlock.jdbc.TableUpkeep} frees and sweeps rows in the background; {@link
 * dev.distlock.jdbc.ReleaseSignals} wakes waiters ({@code PostgresNotifications}: the first registry in a key's
 * queue on its own channel, with {@code WaitQueue} the place a waiting attempt asks for). Read/write locks: {@code JdbcReadWriteBackend}
 * polls, {@code JdbcReadWriteTable} decides, {@code ReadWriteRows} runs the row statements of one
 * call, {@code ReadWriteSchema} checks the {@code _rw} table and {@code ReadWriteStatements} holds
 * its SQL.
 *
 * <p>Server state: a row exists while its key is held, and on PostgreSQL while registries wait in
 * its queue. A release deletes it once the database clock has passed its fence (otherwise it only
 * clears the owner), unless registries wait in the queue: then it clears the owner and wakes the first
 * of them (see {@code PostgresDialect}); rows nobody released, and free rows whose queue lapsed, are
 * deleted by the sweep. Tokens are max(fence + 1, database clock in µs).
 *
 * <p>How a wait is bounded. A waiter starts no attempt after its deadline. The database ends a
 * take's row lock wait at the time left (at least 100 ms): PostgreSQL by {@code lock_timeout},
 * MariaDB by {@code max_statement_time}; MySQL and H2 only by the JDBC query timeout in whole
 * seconds (H2 by its {@code LOCK_TIMEOUT}). A database that stops answering is given up by the
 * connection's network timeout, the registry's answer budget after the call's deadline (at least
 * 150 ms after the database's own bound), so a call ends at most the budget (contract 8) after its
 * wait time, and a live database's late answer to its own timeout has all of that to arrive. An attempt that failed after sending its statement frees the row it may have taken
 * before it throws (in the background when no wait time is left); a plain lock's waiter rides out
 * an unavailable database within its wait instead, looking for the row a lost take may have
 * written by its owner ({@code JdbcLockBackend#tryAcquire}). Read/write locks are bounded the
 * same way: each poll's transaction has the query and network timeouts of the time left, and the
 * wait for the key's anchor row is ended by the database (PostgreSQL's {@code lock_timeout},
 * MariaDB's {@code max_statement_time}). Renewals and releases are
 * bounded by a third of the lease. Waiting for a pooled connection is bounded by the call's time
 * left too (at least the answer budget; renewals and releases 1 s), whatever the pool's own timeout: {@code ConnectionSource} borrows on
 * a helper thread. The registry keeps none of the pool's connections: PostgreSQL's listener opens
 * its own ({@code DirectConnections}).
 */
package dev.distlock.jdbc;
