/**
 * The ZooKeeper backend, {@link dev.distlock.zookeeper.ZooKeeperLockRegistry}. It keeps the contract in {@code
 * docs/contract.md} at the repository root.
 *
 * <p>The parts follow Curator's lock recipes. {@code LockQueue} is the algorithm, one ephemeral-sequential node per
 * attempt under the key's container node. {@code QueueRule} says whether an attempt holds the key or which node it
 * waits for. {@code QueueWait} is an attempt's wait in the queue once its node is there. {@code SessionTracker} says
 * what the session means for holds, and {@code ZooKeeperCalls} makes the server calls, each bounded by the caller's
 * deadline. The fencing token is the owner node's {@code czxid}, and the lease is the session.
 *
 * <p>Read/write locks have a queue of their own per key, {@code <root>/<encoded key>:rw}, under {@code ReadWriteRule}.
 * {@code docs/internals/backends.md} explains the design.
 *
 * <p>After a release the key's empty container node stays on the server until its next container sweep ({@code
 * znode.container.checkIntervalMs}, 60 s by default).
 */
package dev.distlock.zookeeper;
