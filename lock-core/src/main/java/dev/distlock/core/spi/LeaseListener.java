package dev.distlock.core.spi;

/**
 * How a backend tells the registry that a lease was lost without being asked (a ZooKeeper
 * session expired, an etcd lease was revoked). The registry marks the hold invalid and
 * logs a warning naming the key.
 */
@FunctionalInterface
public interface LeaseListener {

    void leaseLost(BackendLease lease, String reason);
}
