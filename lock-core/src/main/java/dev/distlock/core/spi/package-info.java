/**
 * What a backend implements. That is a {@link dev.distlock.core.spi.LockBackend} (acquire, renew, release as atomic
 * server operations, plus who-holds, force-release and a start-up check) and a public registry class extending
 * {@link dev.distlock.core.spi.LockRegistrySupport}. A backend with read/write locks supplies their two sides as
 * {@link dev.distlock.core.spi.LockBackend}s in a {@link dev.distlock.core.spi.ReadWriteLocks}. It tells a
 * request's side by {@link dev.distlock.core.spi.LockMode} and the write holder's own reads by {@link
 * dev.distlock.core.spi.ReadWriteOwners}. What is the same for all backends (reentrancy, the local gate per key,
 * owner ids, lease keeping, lease-loss marking, asynchronous holds) is the engine's, which backends never see. A
 * backend passes the contract test kit before anything else. The contract is {@code docs/contract.md} in the
 * repository.
 *
 * <p>For backend authors, not application code. The SPI is outside the API compatibility check that keeps the user
 * API stable across minor releases ({@code RELEASING.md}). It may change in a minor release, and the changelog says
 * when it does.
 *
 * <h2>Words</h2>
 *
 * One word per idea, the same in every backend ({@code docs/glossary.md} has them all).
 *
 * <ul>
 *   <li>A <b>hold</b> is one owner's granted lock on a key, from the grant to its release or loss. A {@link
 *       dev.distlock.core.spi.BackendLease} is the backend's record of one hold, with what renewing and releasing it
 *       needs. Its implementations are named after it ({@code EtcdLease}, {@code ZooKeeperLease}, {@code JdbcLease},
 *       {@code RedisLease}).
 *   <li>A <b>lease</b> is the server-side expiry of a hold, renewed by the watchdog or fixed. The <b>lease time</b>
 *       is its length (a {@code Duration}). It is never the client's liveness, which is the session.
 *   <li>A <b>session</b> is the client's liveness lease on a server that has one. The holds of a session backend
 *       ({@link dev.distlock.core.spi.LockBackend.LeaseExpiry#SESSION}) live and die with it. It is the ZooKeeper
 *       session ({@code SessionTracker}), or the etcd lease every entry of a registry is attached to ({@code
 *       Sessions}, one session lease at a time).
 *   <li>A <b>take</b> is the one atomic server operation that takes a free key (a script, a transaction, a
 *       statement, a node's creation).
 *   <li>An <b>attempt</b> is one try of one acquisition to get a key on the server. It is its takes, and on a
 *       queueing backend its entry in the key's queue and the wait there until granted, timed out or lost ({@code
 *       Attempt} in etcd, {@code LockQueue.Attempt} in ZooKeeper, the values of a {@code LockRow} in JDBC).
 *   <li>The <b>queue</b> of a key on ZooKeeper or etcd is its entries in creation order. The <b>queue rule</b> is the
 *       per-lock-kind policy of who is next and whom a waiter watches ({@code QueueRule} with {@code MUTEX} or
 *       {@code MutexRule} for plain locks, {@code ReadWriteRule} for read/write locks).
 *   <li>An <b>entry</b>, <b>node</b> or <b>row</b> is what one attempt leaves on the server (an etcd key, a ZooKeeper
 *       node, a lock-table row).
 * </ul>
 *
 * <p>Depends on the API ({@code dev.distlock.core}) only. The one exception is {@code LockRegistrySupport} starting
 * the engine ({@code docs/architecture.md}).
 */
package dev.distlock.core.spi;
