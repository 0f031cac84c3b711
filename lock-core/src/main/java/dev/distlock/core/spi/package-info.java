/**
 * What a backend implements: {@link dev.distlock.core.spi.LockBackend} (acquire, renew, release as
 * atomic server operations, plus who-holds, force-release and a start-up check) and a public
 * registry class extending {@link dev.distlock.core.spi.LockRegistrySupport}. A backend with
 * read/write locks supplies their two sides as {@link dev.distlock.core.spi.LockBackend}s in a
 * {@link dev.distlock.core.spi.ReadWriteLocks}, telling a request's side by {@link
 * dev.distlock.core.spi.LockMode} and the write holder's own reads by {@link
 * dev.distlock.core.spi.ReadWriteOwners}. Everything that is the same for all backends (reentrancy,
 * the local gate per key, owner ids, lease keeping, lease-loss marking, asynchronous holds) is the
 * engine's, which backends never see. A backend passes the contract test kit (lock-core's test-jar)
 * before anything else; the contract is {@code docs/contract.md} in the repository.
 *
 * <p>Depends on the API ({@code dev.distlock.core}) only; the one exception is {@code
 * LockRegistrySupport} starting the engine (see {@code docs/architecture.md}).
 */
package dev.distlock.core.spi;
