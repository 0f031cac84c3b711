/**
 * The JDBC backend, a lock table in PostgreSQL, MySQL/MariaDB or H2. Only {@link
 * dev.distlock.jdbc.JdbcLockRegistry} and its builder are public. The contract it keeps is {@code
 * docs/contract.md}, and the DDL per database is in {@code dev/distlock/jdbc/schema-*.sql} on the
 * classpath.
 *
 * <p>Plain locks run through {@code JdbcLockBackend}, {@link dev.distlock.jdbc.LockTable} and
 * {@link dev.distlock.jdbc.LockDatabase}, with one {@code Dialect} per database. {@code
 * LockTableSetup} sets the table up on first use. {@link dev.distlock.jdbc.TableUpkeep} frees and
 * sweeps rows in the background, and {@link dev.distlock.jdbc.ReleaseSignals} wakes waiters.
 * Read/write locks run through {@code JdbcReadWriteBackend} and {@code JdbcReadWriteTable} on the
 * {@code _rw} table. How rows live and how waits are bounded is in {@code
 * docs/internals/backends.md}.
 */
package dev.distlock.jdbc;
