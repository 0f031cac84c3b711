package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;

/**
 * Who holds a key right now, as the backend has it recorded, whichever instance that is.
 *
 * @param key the key as stored on the backend (registry key prefix included)
 * @param holder the holder's readable description as it recorded it (application, host, pid,
 *     thread), empty when the holder did not record one
 * @param token the fencing token of the current hold
 * @param leaseLeft how long the server keeps the lock without renewal, empty when the lease is
 *     a session (ZooKeeper) or the backend cannot tell
 */
public record LockHolder(String key, String holder, FencingToken token, Optional<Duration> leaseLeft) {}
