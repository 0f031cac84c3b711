package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.distlock.contract.servers.FaultProxies;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Contract rule 4, leases. A hold's lease counts from the request that took the key, never from a registry's
 * one-time set-up, and a call never returns a hold that is already lost. The registries here reach the server
 * through {@link FaultProxies} ({@link LockRegistryContract#createRegistryThrough}), which slow every round trip. A
 * backend with no connection to slow does not run this group.
 */
abstract class Rule04LeasesCountFromTheTake extends LockGroup {

    private FaultProxies proxies;

    Rule04LeasesCountFromTheTake(LockRegistryContract contract) {
        super(contract);
    }

    /**
     * Three times the short lease. A renewal that leaves at 5/6 of it still has half a second to be answered (and
     * half a second of grace), which a database's commit on a loaded machine needs.
     */
    private Duration lease() {
        return leaseTime().multipliedBy(3);
    }

    @Test
    void aColdRegistrysFirstHoldIsLiveAtReturnAndOutlivesALateFirstRenewal() throws Exception {
        assumeLeasesOfTheirOwn();
        Duration lease = lease();
        long start = System.nanoTime();
        // Each round trip of the set-up (at the build or the first call) and of the take. A third of the lease.
        LockRegistry cold = registryThroughProxies(lease, lease.dividedBy(3));
        LockHandle handle =
                cold.obtain(key()).tryAcquire(lease.multipliedBy(10)).orElseThrow();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        boolean validAtReturn = handle.isValid();
        proxies.delayReplies(Duration.ZERO);
        proxies.holdRequests(lease.dividedBy(2)); // the first renewal, due by now, leaves half a lease late

        assertThat(took)
                .as("the registry's set-up and first take were slower than the lease (else this checks nothing)")
                .isGreaterThan(lease);
        assertThat(validAtReturn)
                .as("the hold was valid when the call returned")
                .isTrue();
        keepsItsHold(handle, lease.multipliedBy(3));
        handle.close();
    }

    @Test
    void aWarmRegistrysHoldOutlivesAFirstRenewalHalfALeaseLate() throws Exception {
        Duration lease = lease();
        LockRegistry warm = registryThroughProxies(lease, Duration.ZERO);
        String key = key();
        warm.obtain(key).tryAcquire(lease).orElseThrow().close();

        LockHandle handle = warm.obtain(key).tryAcquire(lease).orElseThrow();
        proxies.holdRequests(lease.multipliedBy(5).dividedBy(6)); // the first renewal, due at 1/3, leaves at 5/6

        keepsItsHold(handle, lease.multipliedBy(3));
        handle.close();
    }

    @Test
    void aTakeAnsweredAfterItsLeaseWouldEndReturnsNoDeadHold() throws Exception {
        assumeLeasesOfTheirOwn();
        Duration lease = lease();
        LockRegistry warm = registryThroughProxies(lease, Duration.ZERO);
        String key = key();
        warm.obtain(key).tryAcquire(lease).orElseThrow().close();

        proxies.delayReplies(lease.plus(lease.dividedBy(5)));
        Future<LockHandle> taking = inThread(
                () -> warm.obtain(key).tryAcquire(lease.multipliedBy(6)).orElseThrow());
        Thread.sleep(lease.multipliedBy(3).dividedBy(2).toMillis()); // the first grant has come, too late
        proxies.delayReplies(Duration.ZERO);
        LockHandle handle = await(taking);

        assertThat(handle.isValid())
                .as("the call gave back the grant whose lease had ended and returned a live hold")
                .isTrue();
        assertThat(tryNow(registryB, key))
                .as("the live hold is the key's only holder")
                .isEmpty();
        keepsItsHold(handle, lease);
        handle.close();
    }

    /** The hold stays valid all of {@code validFor} and is never reported lost. */
    private static void keepsItsHold(LockHandle handle, Duration validFor) throws InterruptedException {
        AtomicInteger lost = new AtomicInteger();
        handle.onLost(lost::incrementAndGet);
        long until = System.nanoTime() + validFor.toNanos();
        while (System.nanoTime() < until) {
            assertThat(handle.isValid()).as("the hold is still valid").isTrue();
            Thread.sleep(20);
        }
        assertThat(lost.get()).as("onLost calls").isZero();
    }

    private void assumeLeasesOfTheirOwn() {
        assumeFalse(
                contract().holdsLastAsSessions(),
                "Holds last as their client's session, which exists before the registry and ends when an answer comes"
                        + " later than its timeout");
    }

    private LockRegistry registryThroughProxies(Duration lease, Duration replyDelay) {
        proxies = contract().closeAfterTest(new FaultProxies());
        proxies.delayReplies(replyDelay);
        LockRegistry registry = contract()
                .createRegistryThrough(proxies, RegistryOptions.defaults().withLeaseTime(lease));
        assumeTrue(
                registry != null,
                "This backend has no connection for a proxy to slow: its leases start in the same process as its"
                        + " server");
        return contract().closeAfterTest(registry);
    }
}
