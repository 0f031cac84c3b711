package dev.distlock.test;

import dev.distlock.core.FencingToken;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.spi.LeaseListener;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * The backend of a {@link ControlledLockRegistry}. Every call goes to the {@link TestLockServer}
 * after asking its faults, so an outage fails calls with the {@link LockBackendException} a real
 * backend throws, and an acquisition rides it out while its wait lasts (contract 8).
 */
final class ControlledBackend implements LockBackend<ControlledLease> {

    /**
     * It is an in-process backend, and names itself as the in-memory one does. The contract allows
     * the five backends' names, and fencing claims and meters of the application see a known one.
     */
    static final String NAME = "memory";

    /** The longest pause between two tries of an acquisition during an outage. */
    private static final long MOST_BACK_OFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final TestLockServer server;
    private final String keyPrefix;
    private volatile LeaseListener listener;
    private volatile LockRegistry registry;

    ControlledBackend(TestLockServer server, String keyPrefix) {
        this.server = server;
        this.keyPrefix = keyPrefix;
    }

    void attach(LockRegistry registry) {
        this.registry = registry;
        server.attach(this);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String address() {
        return "simulated server (lock-test) " + Integer.toHexString(System.identityHashCode(server));
    }

    @Override
    public int maxKeyLength() {
        return 4096;
    }

    @Override
    public Optional<ControlledLease> tryAcquire(LockRequest request) throws InterruptedException {
        long backOff = TimeUnit.MILLISECONDS.toNanos(5);
        while (true) {
            try {
                call(request.key());
                return Optional.ofNullable(server.tryAcquire(this, appKey(request.key()), request));
            } catch (LockBackendException e) {
                long left = request.deadline().remainingNanos();
                if (left <= 0) {
                    throw new LockBackendException(
                            NAME,
                            address(),
                            appKey(request.key()),
                            "gave up when the wait ended; last error: " + e.getMessage(),
                            e);
                }
                TimeUnit.NANOSECONDS.sleep(Math.min(left, backOff));
                backOff = Math.min(backOff * 2, MOST_BACK_OFF_NANOS);
            }
        }
    }

    @Override
    public boolean renew(ControlledLease lease, Duration leaseTime) {
        call(lease.key());
        return server.renew(lease, leaseTime);
    }

    @Override
    public boolean release(ControlledLease lease) {
        call(lease.key());
        return server.release(lease);
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        call(key);
        return server.holderOf(key);
    }

    @Override
    public boolean forceRelease(String key) {
        call(key);
        return server.forceRelease(key);
    }

    @Override
    public void verify(Duration timeout) {
        call(Optional.empty());
    }

    @Override
    public void setLeaseListener(LeaseListener listener) {
        this.listener = listener;
    }

    @Override
    public void close() {
        server.detach(this);
    }

    /** Tells the registry that the server ended {@code lease}. */
    void leaseLost(ControlledLease lease, String reason) {
        LeaseListener told = listener;
        if (told != null) {
            told.leaseLost(lease, reason);
        }
    }

    /** Tokens of this registry's holds that the watchdog keeps (valid, renewed, exclusive). */
    Set<FencingToken> watchdogTokens() {
        LockRegistry owner = registry;
        if (owner == null) {
            return Set.of();
        }
        return owner.holds().stream()
                .filter(hold -> hold.renewed() && hold.valid() && hold.kind() == HoldInfo.Kind.EXCLUSIVE)
                .map(HoldInfo::token)
                .collect(Collectors.toSet());
    }

    String appKey(String fullKey) {
        return fullKey.startsWith(keyPrefix) ? fullKey.substring(keyPrefix.length()) : fullKey;
    }

    /** One call to the server about {@code fullKey}. Held up while the backend is slow, failed while it is unreachable. */
    private void call(String fullKey) {
        call(Optional.ofNullable(fullKey));
    }

    private void call(Optional<String> fullKey) {
        long delay = server.faults().delay(server.now());
        long end = System.nanoTime() + delay;
        for (long left = delay; left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left); // like a slow server, the call takes the delay whatever interrupts it
        }
        if (server.faults().fails(server.now())) {
            Optional<String> key = fullKey.map(this::appKey);
            server.recordCall(LockEvent.Kind.BACKEND_FAILED, key.orElse(""), "connection refused");
            throw new LockBackendException(
                    NAME,
                    address(),
                    key.orElse(null),
                    "connection refused (an outage simulated by LockControl)",
                    new ConnectException("Connection refused"));
        }
    }
}
