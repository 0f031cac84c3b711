package dev.distlock.core.spi;

import java.time.Duration;

/**
 * One acquisition attempt handed to a backend.
 *
 * @param key the full key (registry prefix included), already checked against the backend's limit
 * @param owner who will hold it
 * @param leaseTime how long the server keeps the lock without renewal
 * @param deadline when to give up waiting
 */
public record LockRequest(String key, OwnerId owner, Duration leaseTime, Deadline deadline) {}
