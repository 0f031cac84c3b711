/**
 * What a backend implements: {@link dev.distlock.core.spi.LockBackend} (acquire, renew, release as
 * atomic server operations, plus who-holds, force-release and a start-up check) and a public
 * registry class extending {@link dev.distlock.core.spi.LockRegistrySupport}. Everything that is the
 * same for all backends (reentrancy, the local gate per key, owner ids, lease keeping, lease-loss
 * marking, asynchronous holds) lives in {@link dev.distlock.core.engine}. A backend passes the
 * contract test kit (lock-core's test-jar) before anything else; the contract is {@code
 * docs/contract.md} in the repository.
 */
package dev.distlock.core.spi;
