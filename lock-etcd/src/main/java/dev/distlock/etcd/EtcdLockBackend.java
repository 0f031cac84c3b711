package dev.distlock.etcd;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHolder;
import dev.distlock.core.spi.LeaseListener;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Locks in etcd as entries of a queue per key, all attached to the registry's one session
 * lease: an uncontended acquisition is one transaction, a renewal usually no request at all
 * (the session lease's keep-alive covers every hold), a release one delete.
 */
final class EtcdLockBackend implements LockBackend<EtcdLease> {

    /** Full keys (registry prefix included) up to this many characters; an encoded one stays far below etcd's request limit. */
    static final int MAX_KEY_LENGTH = 4096;

    private final Client client;
    private final EtcdKeys keys;
    private final EtcdRequests requests;
    private final LockQueues queues;
    private final Housekeeper housekeeper;
    private final SessionLease sessions;
    private final AtomicLong entryNumbers = new AtomicLong();

    EtcdLockBackend(Client client, EtcdKeys keys, EtcdRequests requests, Duration leaseTime) {
        this.client = client;
        this.keys = keys;
        this.requests = requests;
        this.queues = new LockQueues(client.getKVClient());
        this.housekeeper = new Housekeeper(requests.timeout());
        this.sessions = new SessionLease(client, requests, housekeeper, leaseTime);
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

    @Override
    public Optional<EtcdLease> tryAcquire(LockRequest request) throws InterruptedException {
        long cutoff = EtcdRequests.cutoff(request.deadline());
        while (true) {
            Attempt attempt = Attempt.enqueue(this, request, cutoff);
            if (attempt == null) {
                if (request.deadline().hasPassed()) {
                    return Optional.empty();
                }
                continue;
            }
            Attempt.Outcome outcome;
            try {
                outcome = attempt.awaitTurn();
            } catch (InterruptedException | RuntimeException e) {
                attempt.withdraw(0);
                throw e;
            }
            switch (outcome) {
                case GRANTED:
                    return Optional.of(attempt.grant());
                case TIMED_OUT:
                    attempt.withdraw(attempt.withdrawalTime());
                    return Optional.empty();
                case ENTRY_LOST:
                default:
                    attempt.withdraw(0);
                    if (request.deadline().hasPassed()) {
                        return Optional.empty();
                    }
            }
        }
    }

    /** Confirms the session lease (usually without a request, see {@link SessionLease}) and moves the hold's end. */
    @Override
    public boolean renew(EtcdLease lease, Duration leaseTime) {
        // A third of the lease leaves time for the watchdog's retry when one request hangs (a dead member).
        long timeout = Math.min(requests.timeout(), Math.max(1, leaseTime.toNanos() / 3));
        try {
            return sessions.renew(lease, leaseTime, timeout);
        } catch (LockBackendException e) {
            if (EtcdRequests.isLeaseNotFound(e.getCause())) {
                sessions.end(lease.session(), "etcd no longer had the registry's session lease");
                return false;
            }
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw requests.failure(lease.key(), "renewal was interrupted", e);
        }
    }

    /** Deletes the hold's entry; none there means its lease had ended. A failed delete goes on in the background. */
    @Override
    public boolean release(EtcdLease lease) {
        sessions.untrack(lease);
        try {
            return requests.awaitUninterruptibly(
                            () -> queues.deleteIfValue(lease.entry(), lease.value()),
                            requests.timeout(),
                            lease.key(),
                            "Releasing (deleting " + lease.entryName() + ")")
                    .isSucceeded();
        } catch (LockBackendException e) {
            dropEntry(lease);
            throw e;
        }
    }

    /** A hold's entry is valid only while its session lease is known to be alive, also right after a process pause. */
    @Override
    public boolean isLeaseSafe(EtcdLease lease) {
        return lease.session().isAlive();
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        List<KeyValue> head = call(() -> queues.head(keys.queue(key)), key, "Reading who holds the lock")
                .getKvs();
        if (head.isEmpty()) {
            return Optional.empty();
        }
        KeyValue entry = head.get(0);
        long ttl = call(
                        () -> client.getLeaseClient().timeToLive(entry.getLease(), LeaseOption.DEFAULT),
                        key,
                        "Reading the holder's lease")
                .getTTL();
        String value = entry.getValue().toString(StandardCharsets.UTF_8);
        return Optional.of(new LockHolder(
                key,
                value.substring(value.indexOf('|') + 1),
                FencingToken.of(entry.getCreateRevision()),
                ttl > 0 ? Optional.of(Duration.ofSeconds(ttl)) : Optional.empty()));
    }

    /** Deletes the entry at the head of the queue; the next holder's entry was created later, so its token is larger. */
    @Override
    public boolean forceRelease(String key) {
        List<KeyValue> head = call(() -> queues.head(keys.queue(key)), key, "Reading who holds the lock")
                .getKvs();
        if (head.isEmpty()) {
            return false;
        }
        KeyValue entry = head.get(0);
        return call(() -> queues.deleteIf(entry.getKey(), entry.getCreateRevision()), key, "Force-releasing the lock")
                .isSucceeded();
    }

    @Override
    public void verify(Duration timeout) {
        String namespace = keys.namespace();
        GetOption countOnly =
                GetOption.builder().isPrefix(true).withCountOnly(true).build();
        try {
            requests.await(
                    () -> client.getKVClient().get(EtcdKeys.bytes(namespace), countOnly),
                    timeout.toNanos(),
                    namespace,
                    "Reading the lock namespace " + namespace);
        } catch (LockBackendException e) {
            throw requests.failure(
                    namespace,
                    e.getMessage() + ". Check the etcd endpoints, that a member with a leader answers, and that the"
                            + " client's user may read and write keys under " + namespace + ".",
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw requests.failure(namespace, "the check was interrupted", e);
        }
    }

    @Override
    public void setLeaseListener(LeaseListener listener) {
        sessions.setListener(listener);
    }

    /** Revokes the session lease (which deletes every entry left on it) and stops the background work. */
    @Override
    public void close() {
        try {
            sessions.close();
        } finally {
            housekeeper.close();
        }
    }

    /** Deletes a hold's entry in the background (its lease time ran out, or a release failed). */
    void dropEntry(EtcdLease lease) {
        housekeeper.finish(
                "Deleting the entry " + lease.entryName(),
                () -> queues.deleteIfValue(lease.entry(), lease.value()),
                0,
                () -> !lease.session().ended);
    }

    private <T> T call(Supplier<CompletableFuture<T>> request, String key, String action) {
        try {
            return requests.await(request, requests.timeout(), key, action);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw requests.failure(key, action + " was interrupted", e);
        }
    }

    long nextEntry() {
        return entryNumbers.incrementAndGet();
    }

    Client client() {
        return client;
    }

    EtcdKeys keys() {
        return keys;
    }

    EtcdRequests requests() {
        return requests;
    }

    LockQueues queues() {
        return queues;
    }

    Housekeeper housekeeper() {
        return housekeeper;
    }

    SessionLease sessions() {
        return sessions;
    }
}
