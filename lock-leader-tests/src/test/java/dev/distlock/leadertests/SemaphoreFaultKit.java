package dev.distlock.leadertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.core.semaphore.Permit;
import dev.distlock.core.semaphore.Permits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Semaphore permits whose holder runs in a JVM of its own that is killed or stopped, on one real backend: the permit
 * returns when its lease ends on the server, by the server's clock, and a holder stopped past its lease finds its
 * permit lost when it resumes, never claiming it after another holder was granted it. A subclass starts the server
 * and says how to reach it.
 */
abstract class SemaphoreFaultKit {

    /** How long a stopped child stays stopped at least: past the one-second clock jump it reports as RESUMED. */
    private static final long MIN_STOP_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);

    private static final long CHILD_MILLIS = 30_000;

    /**
     * The lease of the control run, whose holder must keep its permit: a third of it (the stall a watchdog lease
     * survives, contract 4) is longer than any stall seen on a loaded test machine. The tests that wait for a lease to
     * end use the subclass's shorter lease.
     */
    private static final Duration STEADY_LEASE = Duration.ofSeconds(8);

    private final String name = "permits-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<AutoCloseable> resources = new ArrayList<>();
    private BackendClients clients;
    private LockRegistry registry;

    /** Clients of the server under test, with the lease the tests use. */
    protected abstract BackendClients newClients();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void killedHoldersPermitIsGrantedToAWaiterOnceItsLeaseEndsOnTheServer() throws Exception {
        LeasedSemaphore semaphore = semaphore(2);
        ChildPermitHolder child = child(2, PermitHolderProcess.WATCHDOG);
        ChildPermitHolder.Grant childGrant = child.awaitGrant(CHILD_MILLIS);
        Permit other = held(semaphore
                .tryAcquire(1, Duration.ofSeconds(10))
                .orElseThrow(() -> new AssertionError("no permit within 10 s while the child holds its own; on the"
                        + " server now: " + semaphore.holders() + ", " + semaphore.queueKey() + " held by "
                        + registry().holderOf(semaphore.queueKey()) + ", " + semaphore.waitingKey() + " held by "
                        + registry().holderOf(semaphore.waitingKey()))));
        assertThat(other.slot()).isNotEqualTo(childGrant.slot());

        assertThat(semaphore.tryAcquire(Duration.ZERO))
                .as("a third permit while the child holds one and this JVM the other")
                .isEmpty();
        assertThat(semaphore.holders()).as("both permits held on the server").hasSize(2);
        AtomicLong grantedAt = new AtomicLong();
        CompletableFuture<Optional<Permits>> waiter = semaphore.acquireAsync(1, parentWait());
        waiter.whenComplete((permits, failure) -> grantedAt.set(System.nanoTime()));
        resources.add(() -> waiter.cancel(true));
        awaitQueued(semaphore);
        assertThat(waiter).as("granted while the child holds its permit").isNotDone();

        long killedAt = System.nanoTime();
        child.kill();
        Permit returned = held(waiter.get(parentWait().toMillis() + CHILD_MILLIS, TimeUnit.MILLISECONDS)
                .orElseThrow(() -> new AssertionError("The killed child's permit did not return within "
                        + parentWait().toMillis() + " ms")));

        assertThat(returned.slot()).as("the slot that freed").isEqualTo(childGrant.slot());
        assertThat(returned.token().value())
                .as("the slot's token rises from the killed holder's")
                .isGreaterThan(childGrant.token());
        assertThat(other.isValid()).isTrue();
        assertThat(semaphore.holders())
                .as("the permits on the server are the two of this JVM")
                .hasSize(2)
                .allSatisfy(holder -> assertThat(holder.holder())
                        .containsPattern(pid(ProcessHandle.current().pid())));
        report("permit returned after kill -9 of its holder", grantedAt.get() - killedAt);
    }

    @Test
    void stoppedHolderFindsItsPermitLostWhenItResumesAfterAnotherWasGrantedIt() throws Exception {
        stoppedHolderLosesItsPermit(PermitHolderProcess.WATCHDOG, "renewed lease");
    }

    @Test
    void stoppedHolderOfAFixedLeaseFindsItsPermitLostWhenItResumesAfterAnotherWasGrantedIt() throws Exception {
        Duration fixed = clients().lease();
        stoppedHolderLosesItsPermit(Long.toString(fixed.toMillis()), "fixed permit lease");
    }

    private void stoppedHolderLosesItsPermit(String permitLease, String what) throws Exception {
        LeasedSemaphore semaphore = semaphore(1);
        ChildPermitHolder child = child(1, permitLease);
        ChildPermitHolder.Grant childGrant = child.awaitGrant(CHILD_MILLIS);
        // A permit is never handed out lost (contract 4): the child's first word on it is VALID, however busy the
        // machine.
        assertThat(firstOf(child, "VALID", "LOST"))
                .as("the child's permit was valid when its call returned")
                .startsWith("VALID");

        long stoppedAt = System.nanoTime();
        child.pause();
        Permit granted = held(semaphore
                .tryAcquire(1, parentWait())
                .orElseThrow(() -> new AssertionError("The stopped child's permit did not return within "
                        + parentWait().toMillis() + " ms")));
        long grantedAt = System.nanoTime();
        // Stopped long enough for the child to see its clock jump, whatever the lease.
        long resumeAt = stoppedAt + MIN_STOP_NANOS;
        while (System.nanoTime() < resumeAt) {
            Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(resumeAt - System.nanoTime())));
        }
        child.resume();

        assertThat(child.await("RESUMED", CHILD_MILLIS).text()).isEqualTo("RESUMED false");
        child.await("LOST", CHILD_MILLIS);
        assertThat(child.answersAfter(grantedAt))
                .as("the stopped holder claimed its permit after it was granted to this JVM")
                .filteredOn(line -> line.text().startsWith("VALID"))
                .isEmpty();
        assertThat(granted.slot()).isEqualTo(childGrant.slot());
        assertThat(granted.token().value())
                .as("the slot's token rises from the stopped holder's")
                .isGreaterThan(childGrant.token());
        assertThat(granted.isValid())
                .as("the resumed holder left this JVM's permit alone")
                .isTrue();
        assertThat(semaphore.holders())
                .singleElement()
                .extracting(LockHolder::holder)
                .asString()
                .containsPattern(pid(ProcessHandle.current().pid()));
        report("permit returned after SIGSTOP of its holder (" + what + ")", grantedAt - stoppedAt);
    }

    /**
     * Control run: while the child holds the only permit and runs, this JVM gets nothing, not even with a wait as
     * long as the lease (the child's watchdog renews it), and the child's {@code VALID} lines after the ask are there
     * to see: a semaphore that granted a second holder here would fail the check of the tests above. It asks only once
     * the child claimed its permit, as the tests above stop a child only then.
     */
    @Test
    void controlRunningHolderKeepsTheOnlyPermitAndIsSeenClaimingIt() throws Exception {
        clients = newClients().withLeaseAtLeast(STEADY_LEASE);
        resources.add(0, clients);
        LeasedSemaphore semaphore = semaphore(1);
        ChildPermitHolder child = child(1, PermitHolderProcess.WATCHDOG);
        child.awaitGrant(CHILD_MILLIS);
        assertThat(firstOf(child, "VALID", "LOST"))
                .as("the child's first answer: it holds its permit validly before this JVM asks")
                .startsWith("VALID");

        long askedAt = System.nanoTime();
        assertThat(semaphore.tryAcquire(Duration.ZERO)).as("zero wait").isEmpty();
        assertThat(semaphore.tryAcquire(clients().lease()))
                .as("a wait as long as the lease")
                .isEmpty();

        assertThat(child.answersAfter(askedAt))
                .as("the running holder's claims after this JVM asked")
                .filteredOn(line -> line.text().startsWith("VALID"))
                .isNotEmpty();
        assertThat(semaphore.holders())
                .singleElement()
                .extracting(LockHolder::holder)
                .asString()
                .containsPattern(pid(child.pid()));
    }

    /** The wait of this JVM for a permit that a killed or stopped child held, as the leadership tests wait. */
    private Duration parentWait() {
        return Duration.ofSeconds(30).plus(clients().lease().multipliedBy(3));
    }

    /** Waits until an acquisition of this JVM holds the semaphore's {@code <name>:permit:waiting}: it waits for a slot. */
    private void awaitQueued(LeasedSemaphore semaphore) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CHILD_MILLIS);
        Pattern self = Pattern.compile(pid(ProcessHandle.current().pid()));
        while (!registry()
                .holderOf(semaphore.waitingKey())
                .map(holder -> self.matcher(holder.holder()).find())
                .orElse(false)) {
            assertThat(System.nanoTime()).as("the waiter did not queue").isLessThan(until);
            Thread.sleep(10);
        }
    }

    /**
     * This JVM's semaphore, its connections open before the child starts: a zero-wait step gets one round trip, which
     * a first call of a new client may take longer than.
     */
    private LeasedSemaphore semaphore(int permits) {
        LeasedSemaphore semaphore = LeasedSemaphore.of(registry(), name, permits);
        assertThat(semaphore.holders()).as("permits held before the test").isEmpty();
        return semaphore;
    }

    private LockRegistry registry() {
        if (registry == null) {
            registry = clients().newRegistry();
        }
        return registry;
    }

    /** The first line {@code child} printed of those starting with {@code one} or {@code other}. */
    private static String firstOf(ChildJvm child, String one, String other) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CHILD_MILLIS);
        while (System.nanoTime() < deadline) {
            for (ChildJvm.Line line : child.lines()) {
                if (line.text().startsWith(one) || line.text().startsWith(other)) {
                    return line.text();
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("The child printed neither '" + one + "' nor '" + other + "' within " + CHILD_MILLIS
                + " ms; it printed " + child.lines());
    }

    private ChildPermitHolder child(int permits, String permitLease) throws Exception {
        ChildPermitHolder child = new ChildPermitHolder(name, permits, permitLease, clients());
        resources.add(child);
        return child;
    }

    private Permit held(Permits permits) {
        resources.add(permits);
        return permits.list().get(0);
    }

    private BackendClients clients() {
        if (clients == null) {
            clients = newClients();
            resources.add(0, clients);
        }
        return clients;
    }

    private static String pid(long pid) {
        return "pid " + pid + "\\b";
    }

    private void report(String what, long nanos) {
        System.out.printf(
                "%s, %s (lease %d ms): %.1f ms%n",
                getClass().getSimpleName(), what, clients().lease().toMillis(), nanos / 1e6);
    }
}
