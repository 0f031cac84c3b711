package dev.distlock.test;

/**
 * One held key on the {@link TestLockServer}, either this application's hold ({@code backend} set) or
 * another instance's. Guarded by the server's lock.
 */
final class ServerHold {

    /** Who holds which key, with what token. */
    record Held(String fullKey, String appKey, String owner, String holder, long token) {}

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

    /** This application's hold, through {@code backend} under {@code lease}. */
    ServerHold(Held held, ControlledBackend backend, ControlledLease lease) {
        this.fullKey = held.fullKey();
        this.appKey = held.appKey();
        this.owner = held.owner();
        this.holder = held.holder();
        this.token = held.token();
        this.backend = backend;
        this.lease = lease;
    }

    /** Another instance's hold. No backend of this application, no lease. */
    private ServerHold(Held held) {
        this.fullKey = held.fullKey();
        this.appKey = held.appKey();
        this.owner = held.owner();
        this.holder = held.holder();
        this.token = held.token();
        this.backend = null;
        this.lease = null;
    }

    static ServerHold elsewhere(Held held) {
        return new ServerHold(held);
    }

    /** Leased for {@code nanos} from {@code now}. The watchdog's next renewal is due a third of it later. */
    void leasedFor(long now, long nanos) {
        leaseNanos = nanos;
        expiresAt = now + nanos;
        nextRenewalAt = now + nanos / 3;
    }

    boolean live(long now) {
        return forever || expiresAt - now > 0;
    }
}
