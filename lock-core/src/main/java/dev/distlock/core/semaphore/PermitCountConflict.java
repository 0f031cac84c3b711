package dev.distlock.core.semaphore;

import dev.distlock.core.LockHolder;

/**
 * A semaphore key found held by another declaration of the semaphore, or by something that is not a permit.
 *
 * @param otherPermits the other declaration's count, or null when the holder is not a permit
 */
record PermitCountConflict(
        String semaphore, String backend, int permits, Integer otherPermits, String key, LockHolder holder) {}
