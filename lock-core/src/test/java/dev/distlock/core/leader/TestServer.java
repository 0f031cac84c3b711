package dev.distlock.core.leader;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A lock server for leadership tests whose clients can crash: a crashed client's registry sends
 * nothing more (no renewal, no release), so its keys stay held until their leases run out, as with
 * a process killed while holding them.
 */
final class TestServer {

    private final Map<String, Entry> entries = new HashMap<>();
    private long lastToken;

    /** A new client registry; {@link Client#crash()} silences it. */
    Client client(Duration leaseTime) {
        return new Client(new Backend(), leaseTime);
    }

    private synchronized Optional<Lease> tryAcquire(LockRequest request) throws InterruptedException {
        while (true) {
            long now = System.nanoTime();
            Entry entry = entries.get(request.key());
            if (entry == null || entry.expiresAt - now <= 0) {
                long token = ++lastToken;
                entries.put(
                        request.key(),
                        new Entry(
                                request.owner().value(),
                                now + request.leaseTime().toNanos()));
                return Optional.of(new Lease(request.key(), request.owner().value(), FencingToken.of(token), now));
            }
            long left = request.deadline().remainingNanos();
            if (left <= 0) {
                return Optional.empty();
            }
            long slice = Math.min(left, entry.expiresAt - now);
            wait(Math.max(1, slice / 1_000_000));
        }
    }

    private synchronized boolean renew(Lease lease, Duration leaseTime) {
        long now = System.nanoTime();
        Entry entry = entries.get(lease.key());
        if (entry == null || !entry.owner.equals(lease.owner()) || entry.expiresAt - now <= 0) {
            return false;
        }
        entries.put(lease.key(), new Entry(lease.owner(), now + leaseTime.toNanos()));
        return true;
    }

    private synchronized boolean release(Lease lease) {
        Entry entry = entries.get(lease.key());
        if (entry == null || !entry.owner.equals(lease.owner())) {
            return false;
        }
        entries.remove(lease.key());
        notifyAll();
        return entry.expiresAt - System.nanoTime() > 0;
    }

    private record Entry(String owner, long expiresAt) {}

    record Lease(String key, String owner, FencingToken token, long grantRequestedAtNanos) implements BackendLease {}

    /** A registry of one client of this server. */
    static final class Client extends LockRegistrySupport {

        private final Backend backend;

        private Client(Backend backend, Duration leaseTime) {
            super(backend, RegistryOptions.defaults().withLeaseTime(leaseTime));
            this.backend = backend;
        }

        /** From now on this client sends nothing to the server. */
        void crash() {
            backend.crashed = true;
        }

        /** The next release fails with a backend error, leaving the key to its lease. */
        void failNextRelease() {
            backend.failNextRelease = true;
        }
    }

    private final class Backend implements LockBackend<Lease> {

        volatile boolean crashed;
        volatile boolean failNextRelease;

        @Override
        public String name() {
            return "test";
        }

        @Override
        public String address() {
            return "test server";
        }

        @Override
        public int maxKeyLength() {
            return 256;
        }

        @Override
        public Optional<Lease> tryAcquire(LockRequest request) throws InterruptedException {
            return crashed ? Optional.empty() : TestServer.this.tryAcquire(request);
        }

        @Override
        public boolean renew(Lease lease, Duration leaseTime) {
            if (crashed) {
                throw new IllegalStateException("crashed");
            }
            return TestServer.this.renew(lease, leaseTime);
        }

        @Override
        public boolean release(Lease lease) {
            if (failNextRelease) {
                failNextRelease = false;
                throw new LockBackendException("test", "test server", lease.key(), "unreachable");
            }
            return !crashed && TestServer.this.release(lease);
        }
    }
}
