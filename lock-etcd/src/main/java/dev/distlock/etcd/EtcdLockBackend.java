package dev.distlock.etcd;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHolder;
import dev.distlock.core.spi.LeaseListener;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Plain locks in etcd, as entries of a queue per key on the registry's session lease. An
 * uncontended acquisition is one transaction, a renewal usually no request, a release one delete.
 */
final class EtcdLockBackend implements LockBackend<EtcdLease> {

    /** The longest full key. An encoded one stays far below etcd's request limit. */
    static final int MAX_KEY_LENGTH = 4096;

    private final QueueContext etcd;
    private final QueueRule rule;
    private volatile LeaseListener listener = (lease, reason) -> {};

    EtcdLockBackend(QueueContext etcd) {
        this.etcd = etcd;
        this.rule = new MutexRule(etcd.keys());
    }

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public String address() {
        return etcd.requests().address();
    }

    @Override
    public int maxKeyLength() {
        return MAX_KEY_LENGTH;
    }

    @Override
    public Optional<EtcdLease> tryAcquire(LockRequest request) throws InterruptedException {
        return Attempt.acquire(etcd, rule, request, listener);
    }

    @Override
    public boolean renew(EtcdLease lease, Duration leaseTime) {
        return etcd.renew(lease, leaseTime);
    }

    @Override
    public boolean release(EtcdLease lease) {
        return etcd.release(lease);
    }

    /** A hold is valid only while its session lease is known to be alive. */
    @Override
    public boolean isLeaseSafe(EtcdLease lease) {
        return lease.session().isAlive();
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        List<KeyValue> head = etcd.call(() -> etcd.queues().head(rule.queue(key)), key, "Reading who holds the lock")
                .getKvs();
        if (head.isEmpty()) {
            return Optional.empty();
        }
        KeyValue entry = head.get(0);
        long ttl = etcd.call(
                        () -> etcd.client().getLeaseClient().timeToLive(entry.getLease(), LeaseOption.DEFAULT),
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

    /** Deletes the entry at the head of the queue. The next holder's entry is younger, so its token is larger. */
    @Override
    public boolean forceRelease(String key) {
        List<KeyValue> head = etcd.call(() -> etcd.queues().head(rule.queue(key)), key, "Reading who holds the lock")
                .getKvs();
        if (head.isEmpty()) {
            return false;
        }
        KeyValue entry = head.get(0);
        return etcd.call(
                        () -> etcd.queues().deleteIf(entry.getKey(), entry.getCreateRevision()),
                        key,
                        "Force-releasing the lock")
                .isSucceeded();
    }

    @Override
    public void verify(Duration timeout) {
        EtcdRequests requests = etcd.requests();
        String namespace = etcd.keys().namespace();
        GetOption countOnly =
                GetOption.builder().isPrefix(true).withCountOnly(true).build();
        try {
            requests.await(
                    () -> etcd.client().getKVClient().get(EtcdKeys.bytes(namespace), countOnly),
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
        this.listener = listener;
    }

    /** Revokes the session lease, which deletes every entry left on it, and stops the background work. */
    @Override
    public void close() {
        etcd.close();
    }

    QueueContext context() {
        return etcd;
    }
}
