/**
 * The ZooKeeper backend: {@link dev.distlock.zookeeper.ZooKeeperLockRegistry}. Locks are
 * ephemeral-sequential nodes (Curator), the lowest sequence holds, each waiter watches only its
 * predecessor, and the fencing token is the owner node's {@code czxid}. The lease is the client
 * session. The contract it keeps is the project's DESIGN.md.
 */
package dev.distlock.zookeeper;
