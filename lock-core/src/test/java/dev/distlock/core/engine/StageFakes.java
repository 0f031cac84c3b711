package dev.distlock.core.engine;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** A backend and a listener of hold events for testing the engine's stages one by one. */
final class StageFakes {

    private StageFakes() {}

    /** Waits for {@code latch}; the bound only keeps a broken stage from hanging the build. */
    static boolean awaited(CountDownLatch latch) throws InterruptedException {
        return latch.await(30, TimeUnit.SECONDS);
    }

    record Lease(String key, FencingToken token, long grantRequestedAtNanos) implements BackendLease {}

    /** An in-memory backend whose renewals and releases a test can refuse, fail and count. */
    static final class FakeBackend implements LockBackend<Lease> {
        final LockBackend.LeaseExpiry expiry;
        final ConcurrentHashMap<String, Lease> held = new ConcurrentHashMap<>();
        final AtomicLong tokens = new AtomicLong();
        final AtomicBoolean refuseRenewals = new AtomicBoolean();
        final AtomicBoolean failReleases = new AtomicBoolean();
        final List<Duration> renewedFor = new CopyOnWriteArrayList<>();
        final List<Lease> released = new CopyOnWriteArrayList<>();
        final AtomicReference<CountDownLatch> renewedSignal = new AtomicReference<>(new CountDownLatch(1));
        final AtomicReference<CountDownLatch> releasedSignal = new AtomicReference<>(new CountDownLatch(1));
        /** Each renewal waits for this latch before it answers, at most 30 s. */
        volatile CountDownLatch renewalAnswer = new CountDownLatch(0);
        /** What {@link #sessionLeaseTime()} answers. */
        volatile Duration sessionLease = Duration.ofSeconds(30);
        /** Runs in each release once the key is free on this fake server, before the release returns. */
        volatile Runnable afterRelease = () -> {};

        FakeBackend(LockBackend.LeaseExpiry expiry) {
            this.expiry = expiry;
        }

        @Override
        public String name() {
            return "fake";
        }

        @Override
        public String address() {
            return "nowhere:0";
        }

        @Override
        public int maxKeyLength() {
            return 100;
        }

        /** Takes {@code key} as if the server granted it, requested now. */
        Lease grant(String key) {
            return grant(key, Duration.ZERO);
        }

        /** Takes {@code key} as if the server granted it, requested {@code ago}. */
        Lease grant(String key, Duration ago) {
            Lease lease = new Lease(key, FencingToken.of(tokens.incrementAndGet()), System.nanoTime() - ago.toNanos());
            held.put(key, lease);
            return lease;
        }

        /** How many of the next grants answer {@link #lateBy} after their request was sent. */
        final java.util.concurrent.atomic.AtomicInteger lateGrants = new java.util.concurrent.atomic.AtomicInteger();

        volatile Duration lateBy = Duration.ZERO;

        @Override
        public Optional<Lease> tryAcquire(LockRequest request) {
            if (held.containsKey(request.key())) {
                return Optional.empty();
            }
            boolean late = lateGrants.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
            return Optional.of(grant(request.key(), late ? lateBy : Duration.ZERO));
        }

        @Override
        public boolean renew(Lease lease, Duration leaseTime) {
            renewedFor.add(leaseTime);
            renewedSignal.get().countDown();
            try {
                renewalAnswer.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return !refuseRenewals.get() && lease.equals(held.get(lease.key()));
        }

        @Override
        public boolean release(Lease lease) {
            try {
                if (failReleases.get()) {
                    throw new IllegalStateException("fake release failure");
                }
                released.add(lease);
                boolean freed = held.remove(lease.key(), lease);
                afterRelease.run();
                return freed;
            } finally {
                releasedSignal.get().countDown();
            }
        }

        @Override
        public LockBackend.LeaseExpiry leaseExpiry() {
            return expiry;
        }

        @Override
        public Duration sessionLeaseTime() {
            return sessionLease;
        }
    }

    /** Records what a stage tells the engine. */
    static final class RecordingEvents implements HoldEvents<Lease> {
        final List<String> lostReasons = new CopyOnWriteArrayList<>();
        final List<Hold<Lease>> ended = new CopyOnWriteArrayList<>();
        final List<RuntimeException> errors = new CopyOnWriteArrayList<>();
        final List<Runnable> callbacksNow = new CopyOnWriteArrayList<>();
        final List<Runnable> callbacksLater = new CopyOnWriteArrayList<>();
        final CountDownLatch lostSignal = new CountDownLatch(1);
        final CountDownLatch endedSignal = new CountDownLatch(1);

        @Override
        public String describe() {
            return "fake (nowhere:0)";
        }

        @Override
        public void backendError(String fullKey, RuntimeException error) {
            errors.add(error);
        }

        @Override
        public void lost(Hold<Lease> hold, String reason) {
            lostReasons.add(reason);
            lostSignal.countDown();
        }

        @Override
        public void leaving(Hold<Lease> hold) {}

        @Override
        public void ended(Hold<Lease> hold) {
            ended.add(hold);
            endedSignal.countDown();
        }

        @Override
        public void callback(Hold<Lease> hold, Runnable callback, boolean now) {
            (now ? callbacksNow : callbacksLater).add(callback);
        }
    }

    /**
     * A hold of {@code key} with its gate taken, as the acquirer leaves it.
     *
     * @param sessionPeriod the session bound of a fixed lease on a session backend, or null
     */
    static Hold<Lease> hold(
            FakeBackend backend, String key, Duration leaseTime, boolean renewed, Duration sessionPeriod) {
        return hold(backend, key, leaseTime, renewed, sessionPeriod, Duration.ZERO);
    }

    /** As {@link #hold(FakeBackend, String, Duration, boolean, Duration)}, granted {@code ago}. */
    static Hold<Lease> hold(
            FakeBackend backend,
            String key,
            Duration leaseTime,
            boolean renewed,
            Duration sessionPeriod,
            Duration ago) {
        KeyState<Lease> state = new KeyState<>(key, 1);
        if (!state.gate.tryAcquire()) {
            throw new IllegalStateException("a new key state's gate is free");
        }
        if (sessionPeriod != null) {
            backend.sessionLease = sessionPeriod;
        }
        Acquisition acquisition = renewed
                ? Acquisition.renewed(key, key, Duration.ZERO, leaseTime)
                : Acquisition.fixed(key, key, Duration.ZERO, leaseTime);
        return new Hold<>(backend, state, acquisition, backend.grant(key, ago));
    }
}
