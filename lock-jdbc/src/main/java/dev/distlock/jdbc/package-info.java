/**
 * The JDBC backend: a lock table in PostgreSQL, MySQL/MariaDB or H2. Only {@link
 * dev.distlock.jdbc.JdbcLockRegistry} and its builder are public. The contract it keeps is
 * DESIGN.md's "Semantics every backend keeps"; the DDL per database is in {@code
 * dev/distlock/jdbc/schema-*.sql} on the classpath.
 */
package dev.distlock.jdbc;
