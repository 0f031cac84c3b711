/**
 * The ZooKeeper backend: {@link dev.distlock.zookeeper.ZooKeeperLockRegistry}. The contract it
 * keeps is {@code docs/contract.md} at the repository root.
 *
 * <p>Inside, the parts follow Curator's lock recipes: {@code LockQueue} is the algorithm (an
 * ephemeral-sequential node per attempt under the key's container node, whose data is the
 * holder's description; wait for the node one watches to go), {@code QueueRule} the small rule
 * it asks (does this attempt hold the key, and which node does it wait for: its predecessor, so a
 * release wakes one waiter; it also watches the node ahead of its predecessor and reads the queue
 * when that one goes, while its predecessor holds, so that its predecessor's release hands it the
 * key without another read), {@code SessionTracker} what the client's session means for holds
 * (unsafe while suspended, lost with the session), and {@code ZooKeeperCalls} the server calls,
 * each bounded by the caller's deadline. {@code LockQueue} keeps an attempt's node across retries;
 * {@code QueueWait} is its wait in the queue once the node is there. The fencing token is the
 * owner node's {@code czxid}; the lease is the session, which the registry confirms every third of
 * its timeout.
 *
 * <p>Read/write locks run the same loop in a queue of their own per key, {@code
 * <root>/<encoded key>:rw} (beside the plain lock's {@code <root>/<encoded key>}, never shared
 * with it), under {@code ReadWriteRule}: read, write and downgrade nodes, readers going while no
 * write node is ahead of them, writers when first; {@code ZooKeeperReadWriteBackend} is one side. A
 * waiting writer joins that queue only once its grace has ended or the queue is empty ({@code
 * LockQueue.awaitEmptyQueue}), so that readers who come in its grace go ahead of it.
 *
 * <p>What stays on the server after a release: the key's empty container node (for read/write
 * locks, the {@code :rw} one), until the server's next container sweep ({@code
 * znode.container.checkIntervalMs}, 60 s by default).
 */
package dev.distlock.zookeeper;
