package dev.distlock.test;

/**
 * One held key on the {@link TestLockServer}: this application's hold ({@code backend} set) or
 * another instance's. Guarded by the server's lock.
 */
final class ServerSlot {
    final String fullKey;
    final String appKey;
    final String owner;
    final String holder;
    final long token;
    final ControlledBackend backend;
    final ControlledLease lease;
    boolean forever;
    long expiresAt;
    long leaseNanos;
    long nextRenewalAt;

    ServerSlot(
            String fullKey,
            String appKey,
            String owner,
            String holder,
            long token,
            ControlledBackend backend,
            ControlledLease lease) {
        this.fullKey = fullKey;
        this.appKey = appKey;
        this.owner = owner;
        this.holder = holder;
        this.token = token;
        this.backend = backend;
        this.lease = lease;
    }

    /** Leased for {@code nanos} from {@code now}; the watchdog's next renewal is due a third of it later. */
    void leasedFor(long now, long nanos) {
        leaseNanos = nanos;
        expiresAt = now + nanos;
        nextRenewalAt = now + nanos / 3;
    }

    boolean live(long now) {
        return forever || expiresAt - now > 0;
    }
}
