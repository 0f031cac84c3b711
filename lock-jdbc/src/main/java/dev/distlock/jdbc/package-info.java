/**
 * The JDBC backend: a lock table in PostgreSQL, MySQL/MariaDB or H2. Only {@link
 * dev.distlock.jdbc.JdbcLockRegistry} and its builder are public. The contract it keeps is
 * DESIGN.md's "Semantics every backend keeps"; the DDL per database is in {@code
 * dev/distlock/jdbc/schema-*.sql} on the classpath.
 *
 * <p>How a wait is bounded. A waiter starts no attempt after its deadline, and each lock statement
 * gets the time left as its query timeout, in whole seconds and at least one (so a zero-wait
 * {@code tryAcquire} may take up to a second when another transaction holds the key's row). A
 * statement the database cancels or ends as a lock-wait or deadlock victim is rolled back and
 * counts as "not free". A database that stops answering is given up by the connection's network
 * timeout (query timeout plus one second) and fails with a {@code LockBackendException}.
 * Renewals and releases are bounded by a third of the lease (at least a second), leaving the
 * watchdog time to retry. Not bounded by the wait time: waiting for a pooled connection, which
 * only the pool's own timeout ends (keep HikariCP's {@code connectionTimeout} no longer than the
 * wait times used); H2's row lock waits, which end at H2's {@code LOCK_TIMEOUT} (2 s by default)
 * rather than the query timeout; and on PostgreSQL, the driver's wait for its cancel request to a
 * silent server, bounded by the URL's {@code cancelSignalTimeout} (10 s by default; set it low,
 * e.g. 1).
 */
package dev.distlock.jdbc;
