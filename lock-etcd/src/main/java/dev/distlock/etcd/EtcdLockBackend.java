package dev.distlock.etcd;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Locks in etcd with one lease per hold. The lease's fate is the hold's: the watchdog renews it
 * with single keep-alive requests (no keep-alive stream that could end silently), a fixed-lease
 * hold is simply not renewed and etcd expires it, and a release is one revoke, which deletes the
 * hold's entry and tells whether the lease was still alive.
 */
final class EtcdLockBackend implements LockBackend<EtcdLease> {

    /** Full keys (registry prefix included) up to this many characters; an encoded one stays far below etcd's request limit. */
    static final int MAX_KEY_LENGTH = 4096;

    private final Client client;
    private final EtcdKeys keys;
    private final EtcdRequests requests;

    EtcdLockBackend(Client client, EtcdKeys keys, EtcdRequests requests) {
        this.client = client;
        this.keys = keys;
        this.requests = requests;
    }

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public String address() {
        return requests.address();
    }

    @Override
    public int maxKeyLength() {
        return MAX_KEY_LENGTH;
    }

    EtcdKeys keys() {
        return keys;
    }

    @Override
    public Optional<EtcdLease> tryAcquire(LockRequest request) throws InterruptedException {
        while (true) {
            Attempt attempt = Attempt.enqueue(client, requests, keys, request);
            if (attempt == null) {
                if (request.deadline().hasPassed()) {
                    return Optional.empty();
                }
                continue;
            }
            Attempt.Outcome outcome;
            try {
                outcome = attempt.awaitTurn();
            } catch (InterruptedException e) {
                attempt.withdrawQuietly();
                throw e;
            } catch (RuntimeException e) {
                attempt.abandon();
                throw e;
            }
            switch (outcome) {
                case GRANTED:
                    return Optional.of(attempt.lease());
                case TIMED_OUT:
                    attempt.withdraw();
                    return Optional.empty();
                case LEASE_LOST:
                default:
                    attempt.abandon();
                    if (request.deadline().hasPassed()) {
                        return Optional.empty();
                    }
            }
        }
    }

    /**
     * One keep-alive request, then a check that the entry is still there. etcd answers a
     * keep-alive for a lease it no longer has with TTL 0 rather than an error, so the TTL is
     * checked, not just the absence of an error.
     */
    @Override
    public boolean renew(EtcdLease lease, Duration leaseTime) {
        // A third of the lease leaves time for the watchdog's retry when one request hangs (a dead member).
        long timeout = Math.min(requests.timeout(), Math.max(1, leaseTime.toNanos() / 3));
        try {
            long ttl = requests.await(
                            client.getLeaseClient().keepAliveOnce(lease.leaseId()),
                            timeout,
                            lease.key(),
                            "Renewing the lease")
                    .getTTL();
            if (ttl <= 0) {
                return false;
            }
            List<KeyValue> entry = requests.await(
                            client.getKVClient()
                                    .get(
                                            EtcdKeys.bytes(lease.entry()),
                                            GetOption.builder()
                                                    .withKeysOnly(true)
                                                    .build()),
                            timeout,
                            lease.key(),
                            "Checking the lock entry")
                    .getKvs();
            return entry.size() == 1
                    && entry.get(0).getCreateRevision() == lease.token().value();
        } catch (LockBackendException e) {
            if (EtcdRequests.isLeaseNotFound(e.getCause())) {
                return false;
            }
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw requests.failure(lease.key(), "renewal was interrupted", e);
        }
    }

    /** Revokes the hold's lease, which deletes its entry; "lease not found" means it had already expired. */
    @Override
    public boolean release(EtcdLease lease) {
        try {
            requests.awaitUninterruptibly(
                    client.getLeaseClient().revoke(lease.leaseId()),
                    requests.timeout(),
                    lease.key(),
                    "Releasing (revoking the lease of " + lease.entry() + ")");
            return true;
        } catch (LockBackendException e) {
            if (EtcdRequests.isLeaseNotFound(e.getCause())) {
                return false;
            }
            throw e;
        }
    }
}
