package dev.distlock.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The registry machinery that the contract kit cannot reach through a well-behaved backend. */
class LockRegistrySupportTest {

    @Test
    void idleKeysLeaveNothingBehind() throws Exception {
        MemoryLockRegistry registry = new MemoryLockRegistry();
        for (int i = 0; i < 1_000_000; i++) {
            FencedLock lock = registry.obtain("key-" + i);
            lock.tryAcquire(Duration.ZERO).orElseThrow().close();
        }
        assertThat(tracked(registry)).isZero();
        assertThat(registry.store().size()).isZero();
        registry.close();
    }

    @Test
    void heldAndWaitedKeysAreTrackedUntilReleased() throws Exception {
        MemoryLockRegistry registry = new MemoryLockRegistry();
        LockHandle a = registry.obtain("a").acquire();
        LockHandle b = registry.obtain("b").acquire();
        registry.obtain("c");
        assertThat(tracked(registry)).isEqualTo(2);
        a.close();
        b.close();
        assertThat(tracked(registry)).isZero();
    }

    @Test
    void handleTurnsInvalidWhenTheServerDropsTheLease() throws Exception {
        MemoryLockStore store = new MemoryLockStore();
        MemoryLockRegistry registry = MemoryLockRegistry.builder()
                .store(store)
                .leaseTime(Duration.ofMillis(300))
                .build();
        LockHandle handle = registry.obtain("k").acquire();
        store.expire("k");
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (handle.isValid() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(handle.isValid()).as("the watchdog found the lease gone").isFalse();
        assertThat(registry.obtain("k").isHeldByCurrentThread()).isFalse();
        handle.close(); // no exception after loss
        assertThat(registry.obtain("k").holdCount()).isZero();
        registry.close();
    }

    @Test
    void failingRenewalsInvalidateTheHoldOnceTheLeaseRunsOut() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        // Long enough that a stalled machine still renews (and retries) before the lease ends.
        Duration lease = Duration.ofMillis(1_500);
        TestRegistry registry = new TestRegistry(backend, lease);
        long requestedBefore = System.nanoTime();
        LockHandle handle = registry.obtain("k").acquire();
        backend.failRenewals.set(true);
        // Measured, not slept: a loaded machine may oversleep past the lease.
        long seenInvalid = awaitInvalid(handle, Duration.ofSeconds(10));
        assertThat(Duration.ofNanos(seenInvalid - requestedBefore))
                .as("valid until the lease ran out")
                .isGreaterThanOrEqualTo(lease.minusMillis(1));
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (backend.renewCalls.get() < 2 && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        assertThat(backend.renewCalls.get()).as("renewal was retried").isGreaterThan(1);
        handle.close();
        registry.close();
    }

    @Test
    void hangingRenewalStillLosesTheHoldAtTheEndOfItsLease() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        TestRegistry registry = new TestRegistry(backend, Duration.ofMillis(300));
        LockHandle handle = registry.obtain("k").acquire();
        backend.renewDelayMillis.set(3_000);
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            // Well before the hanging renewal gives up (3 s), however slow the machine.
            long deadline = System.nanoTime() + Duration.ofMillis(2_500).toNanos();
            while ((handle.isValid()
                            || !captured.toString(StandardCharsets.UTF_8).contains("lost its lease"))
                    && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
            }
        } finally {
            System.setErr(stderr);
        }
        assertThat(handle.isValid()).isFalse();
        assertThat(captured.toString(StandardCharsets.UTF_8))
                .as("the WARN comes at the lease's end, not when the hanging renewal gives up")
                .contains(
                        "Lock 'k' on fake (nowhere:0) lost its lease: the lease ran out while a renewal got no answer");
        backend.renewDelayMillis.set(0);
        handle.close();
        registry.close();
    }

    @Test
    void renewalStopsWhenTheHoldEnds() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        TestRegistry registry = new TestRegistry(backend, Duration.ofMillis(150));
        registry.obtain("k").acquire().close();
        int renewals = backend.renewCalls.get();
        Thread.sleep(400);
        assertThat(backend.renewCalls.get()).isEqualTo(renewals);
        registry.close();
    }

    @Test
    void sessionBackendConfirmsItsLeasesAndEndsFixedLeasesByRelease() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SESSION);
        // A session long enough that a loaded machine's stall does not end it between confirmations.
        backend.sessionLease = Duration.ofMillis(1_500);
        TestRegistry registry = new TestRegistry(backend, Duration.ofMillis(150));
        long start = System.nanoTime();
        LockHandle renewed = registry.obtain("session").acquire();
        LockHandle fixed = registry.obtain("fixed")
                .tryAcquire(Duration.ZERO, Duration.ofMillis(200))
                .orElseThrow();
        long twoSessions = backend.sessionLease.multipliedBy(2).toNanos();
        long deadline = start + Duration.ofSeconds(20).toNanos();
        while ((System.nanoTime() - start < twoSessions || backend.held.containsKey("fixed"))
                && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        assertThat(backend.renewCalls.get())
                .as("confirmed every third of the session")
                .isGreaterThanOrEqualTo(3);
        assertThat(renewed.isValid()).as("a confirmed session lease lasts").isTrue();
        assertThat(fixed.isValid()).isFalse();
        assertThat(backend.held).doesNotContainKey("fixed").containsKey("session");
        fixed.close();
        renewed.close();
        registry.close();
    }

    @Test
    void sessionHoldTurnsInvalidWhenNoConfirmationSucceedsWithinTheSession() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SESSION);
        backend.sessionLease = Duration.ofMillis(300);
        TestRegistry registry = new TestRegistry(backend, Duration.ofSeconds(30));
        LockHandle handle = registry.obtain("k").acquire();
        backend.renewDelayMillis.set(2_000);
        Thread.sleep(600);
        assertThat(handle.isValid())
                .as("a holder that could not confirm its session for a whole session timeout is not valid")
                .isFalse();
        backend.renewDelayMillis.set(0);
        handle.close();
        registry.close();
    }

    @Test
    void lateRenewalAnswerAfterLossIsNeverRenewedAgainAndReleaseFreesTheServer() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        // Renewal at 200 ms answers "held" at 1,200 ms, after the lease was declared lost at 700 ms (its end at
        // 600 ms plus the sixth of the lease a renewal in flight gets to answer).
        TestRegistry registry = new TestRegistry(backend, Duration.ofMillis(600));
        LockHandle handle = registry.obtain("k").acquire();
        backend.renewDelayMillis.set(1_000);
        Thread.sleep(650);
        assertThat(handle.isValid()).isFalse();
        backend.renewDelayMillis.set(0);
        int callsAfterLoss = backend.renewCalls.get();
        Thread.sleep(1_000);
        assertThat(backend.renewCalls.get())
                .as("a lost hold is not renewed after a late 'still held' answer")
                .isEqualTo(callsAfterLoss);
        assertThat(backend.held)
                .as("the late renewal kept the key on the server")
                .containsKey("k");
        handle.close();
        awaitReleaseCalls(backend, 1); // a lost hold's server clean-up runs in the background
        assertThat(backend.held).as("the owner's release frees it").isEmpty();
        registry.close();
    }

    @Test
    void slowRenewalsOfManyHoldsDoNotStarveEachOther() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        // Renewed one after another, 200 renewals of a quarter lease each would take 50 leases;
        // the lease is long enough that a stalled machine does not end one of them either way.
        Duration lease = Duration.ofMillis(2_000);
        TestRegistry registry = new TestRegistry(backend, lease);
        backend.renewDelayMillis.set(lease.toMillis() / 4);
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            handles.add(registry.obtain("k" + i).acquire());
        }
        Thread.sleep(lease.multipliedBy(4).toMillis());
        assertThat(handles)
                .allSatisfy(handle -> assertThat(handle.isValid())
                        .as("%s survived slow renewals", handle)
                        .isTrue());
        backend.renewDelayMillis.set(0);
        handles.forEach(LockHandle::close);
        registry.close();
    }

    @Test
    void leaseLossReportedByTheBackendInvalidatesTheHold() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SESSION);
        TestRegistry registry = new TestRegistry(backend, Duration.ofSeconds(30));
        LockHandle handle = registry.obtain("k").acquire();
        backend.listener.get().leaseLost(backend.held.get("k"), "session expired");
        assertThat(handle.isValid()).isFalse();
        handle.close();
        awaitReleaseCalls(backend, 1); // a lost hold's server clean-up runs in the background
        assertThat(backend.held).isEmpty();
        registry.close();
    }

    @Test
    void unsafeLeaseMakesTheHandleInvalidWhileItLasts() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SESSION);
        TestRegistry registry = new TestRegistry(backend, Duration.ofSeconds(30));
        LockHandle handle = registry.obtain("k").acquire();
        backend.safe.set(false);
        assertThat(handle.isValid()).isFalse();
        backend.safe.set(true);
        assertThat(handle.isValid()).isTrue();
        handle.close();
        registry.close();
    }

    @Test
    void backendFailureOnReleaseReachesTheCallerAndFreesLocalState() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        TestRegistry registry = new TestRegistry(backend, Duration.ofSeconds(30));
        FencedLock lock = registry.obtain("k");
        LockHandle handle = lock.acquire();
        backend.failReleases.set(true);
        assertThatThrownBy(handle::close)
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("'k'");
        assertThat(lock.holdCount()).isZero();
        assertThat(tracked(registry)).isZero();
        backend.failReleases.set(false);
        assertThat(lock.tryAcquire(Duration.ZERO))
                .as("the local gate was given back")
                .isPresent();
        registry.close();
    }

    @Test
    void threadsOfOneRegistryReachTheServerOneAtATime() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        TestRegistry registry = new TestRegistry(backend, Duration.ofSeconds(30));
        LockHandle held = registry.obtain("k").acquire();
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Thread waiter = new Thread(() -> {
                try {
                    registry.obtain("k").tryAcquire(Duration.ofMillis(300));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            waiter.start();
            waiters.add(waiter);
        }
        for (Thread waiter : waiters) {
            waiter.join();
        }
        assertThat(backend.acquireCalls).as("waiters queue on the local gate").hasValue(1);
        held.close();
        registry.close();
    }

    @Test
    void closingTheRegistryStopsRenewalsAndReleasesHolds() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        TestRegistry registry = new TestRegistry(backend, Duration.ofMillis(150));
        LockHandle handle = registry.obtain("k").acquire();
        registry.close();
        int renewals = backend.renewCalls.get();
        Thread.sleep(300);
        assertThat(backend.renewCalls.get()).isEqualTo(renewals);
        assertThat(backend.held).isEmpty();
        assertThat(backend.closed).isTrue();
        assertThat(handle.isValid()).isFalse();
        handle.close();
    }

    @Test
    void keyPrefixIsAppliedAndCountsTowardsTheLimit() {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        TestRegistry registry = new TestRegistry(backend, Duration.ofSeconds(30), "app:");
        assertThat(registry.obtain("k".repeat(6)).key()).isEqualTo("kkkkkk");
        assertThatThrownBy(() -> registry.obtain("k".repeat(7)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 10")
                .hasMessageContaining("fake");
        registry.close();
    }

    @Test
    void ownerIdsDifferAcrossRegistriesAndHolds() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        TestRegistry first = new TestRegistry(backend, Duration.ofSeconds(30));
        TestRegistry second = new TestRegistry(backend, Duration.ofSeconds(30));
        first.obtain("a").acquire().close();
        first.obtain("a").acquire().close();
        second.obtain("a").acquire().close();
        assertThat(backend.owners).hasSize(3).doesNotHaveDuplicates();
        assertThat(backend.owners.get(0).registry())
                .isEqualTo(backend.owners.get(1).registry());
        assertThat(backend.owners.get(0).registry())
                .isNotEqualTo(backend.owners.get(2).registry());
        assertThat(backend.owners)
                .allSatisfy(o -> assertThat(o.value().length()).isLessThanOrEqualTo(60));
        first.close();
        second.close();
    }

    @Test
    void releasingALostHoldReturnsWhileTheServerHangs() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        TestRegistry registry = new TestRegistry(backend, Duration.ofSeconds(30));
        LockHandle handle = registry.obtain("k")
                .tryAcquire(Duration.ZERO, Duration.ofMillis(100))
                .orElseThrow();
        awaitInvalid(handle);
        backend.hangReleases();
        try {
            // The release must not wait for the hanging server: it runs in another thread, and
            // this test lets the server answer only after that release returned (or 20 s passed).
            Thread releasing = new Thread(handle::close);
            releasing.start();
            releasing.join(20_000);
            assertThat(releasing.isAlive())
                    .as("the release of a lost hold waits for a server that does not answer")
                    .isFalse();
        } finally {
            backend.answerReleases();
        }
        awaitReleaseCalls(backend, 1);
        assertThat(backend.held)
                .as("the background release freed the server's entry")
                .isEmpty();
        registry.close();
    }

    @Test
    void closingARegistryWithLostHoldsReturnsWhileTheServerHangs() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        TestRegistry registry = new TestRegistry(backend, Duration.ofSeconds(30));
        LockHandle first = registry.obtain("a")
                .tryAcquire(Duration.ZERO, Duration.ofMillis(100))
                .orElseThrow();
        LockHandle second = registry.obtain("b")
                .tryAcquire(Duration.ZERO, Duration.ofMillis(100))
                .orElseThrow();
        awaitInvalid(first);
        awaitInvalid(second);
        backend.hangReleases();
        try {
            Thread closing = new Thread(registry::close);
            closing.start();
            closing.join(20_000);
            assertThat(closing.isAlive())
                    .as("close() waits for a server that does not answer the releases of lost holds")
                    .isFalse();
            assertThat(backend.closed)
                    .as("the backend is closed after its last background release")
                    .isFalse();
        } finally {
            backend.answerReleases();
        }
        awaitReleaseCalls(backend, 2);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!backend.closed.get() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(backend.closed).isTrue();
        assertThat(backend.held).isEmpty();
    }

    private static void awaitInvalid(LockHandle handle) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (handle.isValid() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(handle.isValid()).isFalse();
    }

    private static void awaitReleaseCalls(FakeBackend backend, int calls) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (backend.releasesDone.get() < calls && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(backend.releasesDone.get()).isEqualTo(calls);
    }

    private static int tracked(LockRegistrySupport registry) {
        return registry.trackedKeys();
    }

    private static final class TestRegistry extends LockRegistrySupport {
        TestRegistry(FakeBackend backend, Duration leaseTime) {
            this(backend, leaseTime, "");
        }

        TestRegistry(FakeBackend backend, Duration leaseTime, String prefix) {
            super(backend, new RegistryOptions(leaseTime, prefix));
        }
    }

    /** A scriptable backend: grants free keys at once, counts calls, fails on request. */
    private static final class FakeBackend implements LockBackend<FakeBackend.Lease> {

        record Lease(String key, FencingToken token, long grantRequestedAtNanos) implements BackendLease {}

        final LockBackend.LeaseExpiry expiry;
        final ConcurrentHashMap<String, Lease> held = new ConcurrentHashMap<>();
        final List<OwnerId> owners = new java.util.concurrent.CopyOnWriteArrayList<>();
        final AtomicLong tokens = new AtomicLong();
        final AtomicInteger acquireCalls = new AtomicInteger();
        final AtomicInteger renewCalls = new AtomicInteger();
        final AtomicBoolean failRenewals = new AtomicBoolean();
        final AtomicLong renewDelayMillis = new AtomicLong();
        final AtomicBoolean failReleases = new AtomicBoolean();
        final AtomicInteger releaseCalls = new AtomicInteger();
        final AtomicInteger releasesDone = new AtomicInteger();
        /** While set, releases wait for it (a server that does not answer), at most 30 s. */
        volatile java.util.concurrent.CountDownLatch releaseAnswer;

        final AtomicBoolean safe = new AtomicBoolean(true);
        final AtomicBoolean closed = new AtomicBoolean();
        final AtomicReference<LeaseListener> listener = new AtomicReference<>();
        volatile Duration sessionLease = Duration.ofSeconds(30);

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
            return 10;
        }

        @Override
        public Optional<Lease> tryAcquire(LockRequest request) throws InterruptedException {
            acquireCalls.incrementAndGet();
            owners.add(request.owner());
            long now = System.nanoTime();
            Lease lease = new Lease(request.key(), FencingToken.of(tokens.incrementAndGet()), now);
            if (held.putIfAbsent(request.key(), lease) == null) {
                return Optional.of(lease);
            }
            Thread.sleep(request.deadline().remainingMillis());
            return Optional.empty();
        }

        @Override
        public boolean renew(Lease lease, Duration leaseTime) {
            renewCalls.incrementAndGet();
            try {
                Thread.sleep(renewDelayMillis.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (failRenewals.get()) {
                throw new LockBackendException("fake", "nowhere:0", lease.key(), "unreachable");
            }
            return held.get(lease.key()) == lease;
        }

        void hangReleases() {
            releaseAnswer = new java.util.concurrent.CountDownLatch(1);
        }

        void answerReleases() {
            releaseAnswer.countDown();
        }

        @Override
        public boolean release(Lease lease) {
            releaseCalls.incrementAndGet();
            try {
                java.util.concurrent.CountDownLatch answer = releaseAnswer;
                if (answer != null) {
                    answer.await(30, java.util.concurrent.TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                return releaseNow(lease);
            } finally {
                releasesDone.incrementAndGet();
            }
        }

        private boolean releaseNow(Lease lease) {
            if (failReleases.get()) {
                held.remove(lease.key(), lease);
                throw new LockBackendException("fake", "nowhere:0", lease.key(), "unreachable");
            }
            return held.remove(lease.key(), lease);
        }

        @Override
        public LeaseExpiry leaseExpiry() {
            return expiry;
        }

        @Override
        public Duration sessionLeaseTime() {
            return sessionLease;
        }

        @Override
        public boolean isLeaseSafe(Lease lease) {
            return safe.get();
        }

        @Override
        public void setLeaseListener(LeaseListener leaseListener) {
            listener.set(leaseListener);
        }

        @Override
        public void close() {
            closed.set(true);
        }
    }

    /** Waits until {@code handle} turns invalid, at most {@code bound}; returns when it was first seen invalid. */
    private static long awaitInvalid(LockHandle handle, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (handle.isValid()) {
            assertThat(System.nanoTime() - deadline)
                    .as("still valid after %s", bound)
                    .isNegative();
            Thread.sleep(5);
        }
        return System.nanoTime();
    }
}
