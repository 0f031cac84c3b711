/**
 * What backends implement: {@link dev.distlock.core.spi.LockBackend} (acquire, renew, release as
 * atomic server operations) and a public registry class extending
 * {@link dev.distlock.core.spi.LockRegistrySupport}, which supplies reentrancy, the local gate
 * per key, owner ids, the lease watchdog and lease-loss marking. A backend passes the contract
 * test kit (lock-core's test-jar) before anything else.
 */
package dev.distlock.core.spi;
