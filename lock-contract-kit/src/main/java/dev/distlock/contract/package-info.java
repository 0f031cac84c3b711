/**
 * The contract test kit: {@link dev.distlock.contract.LockRegistryContract} and {@link
 * dev.distlock.contract.ReadWriteLockContract}, JUnit 5 tests that a backend's own test class extends to check the
 * rules of {@code docs/contract.md} against a real server, grouped by rule number. {@code
 * dev.distlock.contract.servers} starts such a server as a child process on a free loopback port.
 */
package dev.distlock.contract;
