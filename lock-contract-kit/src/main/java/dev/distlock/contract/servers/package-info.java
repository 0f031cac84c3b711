/**
 * Servers under test, one fixture each. Etcd ({@link dev.distlock.contract.servers.EtcdProcess}) and redis-server
 * ({@link dev.distlock.contract.servers.RedisProcesses}) run as child processes on free loopback ports that a test can
 * kill, pause and restart. {@link dev.distlock.contract.servers.JdbcServer} reaches PostgreSQL, MariaDB and H2, and a
 * {@link dev.distlock.contract.servers.FaultProxy} plays network faults in front of any of them. A missing server
 * skips the test on a developer's machine and fails it on CI. See {@code docs/internals/kit.md}.
 */
package dev.distlock.contract.servers;
