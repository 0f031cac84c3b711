/**
 * Servers under test, one fixture each. Etcd ({@link dev.distlock.contract.servers.EtcdProcess}) and redis-server
 * ({@link dev.distlock.contract.servers.RedisProcesses}) run as child processes on free loopback ports that a test can
 * kill, pause and restart. PostgreSQL, MariaDB and H2 reached over JDBC ({@link
 * dev.distlock.contract.servers.JdbcServer}). A {@link dev.distlock.contract.servers.FaultProxy} that plays network
 * faults in front of any of them. And what a test does when its server is missing (skipped on a developer's machine,
 * failed on CI).
 */
package dev.distlock.contract.servers;
