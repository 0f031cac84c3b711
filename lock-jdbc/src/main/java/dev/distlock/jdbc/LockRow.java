package dev.distlock.jdbc;

import dev.distlock.core.spi.LockRequest;
import java.time.Duration;

/**
 * The values an attempt writes into its key's row, the same for every take of one attempt.
 *
 * @param key the full key
 * @param owner the owner written into the row, unique per hold, so it also names this attempt
 * @param holder the readable holder description stored beside it, null when there is none
 * @param leaseMicros the lease in microseconds, the precision of every dialect's expires_at
 */
record LockRow(String key, String owner, String holder, long leaseMicros) {

    static LockRow of(LockRequest request) {
        String holder = request.holder() == null || request.holder().isEmpty() ? null : request.holder();
        if (holder != null && holder.length() > LockRequest.MAX_HOLDER_LENGTH) {
            holder = holder.substring(0, LockRequest.MAX_HOLDER_LENGTH);
        }
        return new LockRow(request.key(), request.owner().value(), holder, leaseMicros(request.leaseTime()));
    }

    /** The lease rounded up to whole microseconds, never less than the holder counts on. */
    static long leaseMicros(Duration lease) {
        long seconds = lease.getSeconds();
        int nanos = lease.getNano();
        return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), (nanos + 999) / 1000);
    }
}
