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
 * <p>For backend authors, not application code: the SPI is outside the API compatibility check that
 * keeps the user API stable across minor releases ({@code RELEASING.md}). It may change in a minor
 * release; the changelog says when it does.
 *
 * <h2>Words</h2>
 *
 * One word per idea, the same in every backend:
 *
 * <ul>
 *   <li><b>hold</b>: one owner's granted lock on a key, from the grant to its release or loss. A
 *       {@link dev.distlock.core.spi.BackendLease} is the backend's record of one hold (what renewing
 *       and releasing it needs); its implementations are named after it ({@code EtcdLease}, {@code
 *       ZooKeeperLease}, {@code JdbcLease}, {@code RedisLease}).
 *   <li><b>lease</b>: the server-side expiry of a hold, renewed by the watchdog or fixed; <b>lease
 *       time</b> is its length (a {@code Duration}). Never the client's liveness: that is the session.
 *   <li><b>session</b>: the client's liveness lease on a server that has one, which the holds of a
 *       session backend ({@link dev.distlock.core.spi.LockBackend.LeaseExpiry#SESSION}) live and die
 *       with: the ZooKeeper session ({@code SessionTracker}), the etcd lease every entry of a registry
 *       is attached to ({@code Sessions}, one session lease at a time).
 *   <li><b>take</b>: the one atomic server operation that takes a free key (a script, a transaction, a
 *       statement, a node's creation).
 *   <li><b>attempt</b>: one try of one acquisition to get a key on the server: its takes, and on a
 *       queueing backend its entry in the key's queue and the wait there until granted, timed out or
 *       lost ({@code Attempt} in etcd, {@code LockQueue.Attempt} in ZooKeeper; in JDBC the values it
 *       writes are a {@code LockRow}).
 *   <li><b>queue</b> and <b>queue rule</b>: on backends that line waiters up (ZooKeeper, etcd), the
 *       key's entries in creation order, and the per-lock-kind policy of who is next and whom a
 *       waiter watches: {@code QueueRule} with {@code MUTEX} / {@code MutexRule} for plain locks and
 *       {@code ReadWriteRule} for read/write locks, in both backends.
 *   <li><b>entry</b> / <b>node</b> / <b>row</b>: what one attempt leaves on the server: an etcd key, a
 *       ZooKeeper node, a lock-table row.
 * </ul>
 *
 * <p>Depends on the API ({@code dev.distlock.core}) only; the one exception is {@code
 * LockRegistrySupport} starting the engine (see {@code docs/architecture.md}).
 */
package dev.distlock.core.spi;
