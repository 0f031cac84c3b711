package dev.distlock.zookeeper;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;

/**
 * A granted ZooKeeper lock, the owner's ephemeral-sequential node.
 *
 * @param key the full lock key
 * @param path the owner's node, relative to the client's namespace
 * @param token the node's {@code czxid}
 * @param sessionId the session that owns the node ({@code ephemeralOwner}). The lease ends with it
 * @param grantRequestedAtNanos {@link System#nanoTime()} before the request whose answer granted the lock (the create
 *     and read of the queue, a later read, or the reads that set the watches). The server heard from the session no
 *     earlier than that
 */
record ZooKeeperLease(String key, String path, FencingToken token, long sessionId, long grantRequestedAtNanos)
        implements BackendLease {}
