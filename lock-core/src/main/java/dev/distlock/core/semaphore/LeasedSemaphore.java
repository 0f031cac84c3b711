package dev.distlock.core.semaphore;

import dev.distlock.core.DurationText;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.SemaphoreKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A counting semaphore over any {@link LockRegistry}. At most {@link #permits()} permits of one name are held at a
 * time, across threads, registries and JVMs. Slot {@code i} is the lock on key {@code <name>:permit:<i>}, a key that
 * {@link LockRegistry#obtain} refuses (see {@link SemaphoreKeys}). A granted permit is a hold of that key owned by its
 * {@link Permit}, not by a thread. It has its own lease, fencing token and loss notice, so the permit of a crashed
 * holder returns when its lease ends on the server. A waiter for several permits is never overtaken by a later one.
 * Semantics, order and costs are in {@code docs/semaphores.md}, the workings in {@code docs/internals/recipes.md}.
 *
 * <p>Every instance must declare a name with the same number of permits. Holds record {@code permits=<n>} as their
 * note ({@link FencedLock#withNote}), and an acquisition that meets another count fails with {@link
 * PermitCountConflictException}.
 */
public final class LeasedSemaphore {

    /** The most permits a semaphore can have. Each is a key that a waiting acquisition watches. */
    public static final int MAX_PERMITS = 1024;

    static final String NOTE_PREFIX = "permits=";
    private static final Logger log = LoggerFactory.getLogger(LeasedSemaphore.class);

    private final LockRegistry registry;
    private final String name;
    private final int permits;
    private final String note;
    private final boolean notes;
    private final KeyHolders holders;
    /** False once the registry said it cannot take a slot on the condition that {@code <name>:permit:waiting} is free. */
    private volatile boolean guardsTakes = true;

    private LeasedSemaphore(LockRegistry registry, String name, int permits) {
        this.registry = registry;
        this.name = name;
        this.permits = permits;
        this.note = NOTE_PREFIX + permits;
        this.notes = checkKeys();
        this.holders = new KeyHolders(registry, name, permits, notes);
    }

    /**
     * The semaphore {@code name} with {@code permits} permits on {@code registry}. Cheap. It keeps no state beyond
     * its arguments, and nothing is stored on the server until a permit is acquired.
     *
     * @throws IllegalArgumentException naming the semaphore and the backend when the name is null or blank, its keys
     *     are too long for the backend, or {@code permits} is not between 1 and {@link #MAX_PERMITS}
     */
    public static LeasedSemaphore of(LockRegistry registry, String name, int permits) {
        Objects.requireNonNull(registry, "registry");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("A semaphore name must not be " + (name == null ? "null" : "blank")
                    + " (" + registry.backend() + " backend); name the resource the permits limit");
        }
        if (permits < 1 || permits > MAX_PERMITS) {
            throw new IllegalArgumentException("Semaphore '" + name + "' on " + registry.backend()
                    + " is declared with " + permits + " permits; a semaphore has 1 to " + MAX_PERMITS + " permits");
        }
        return new LeasedSemaphore(registry, name, permits);
    }

    /** The semaphore's name. */
    public String name() {
        return name;
    }

    /** How many permits the semaphore has. */
    public int permits() {
        return permits;
    }

    /** The registry's backend name, for messages. */
    public String backend() {
        return registry.backend();
    }

    /** The lock key of slot {@code slot} ({@code <name>:permit:<slot>}), e.g. to force-release it. */
    public String slotKey(int slot) {
        if (slot < 0 || slot >= permits) {
            throw new IllegalArgumentException("Semaphore '" + name + "' on " + registry.backend()
                    + " has permits 0 to " + (permits - 1) + ", not " + slot + "; ask for a slot in that range");
        }
        return SemaphoreKeys.slot(name, slot);
    }

    /** The lock key on which acquisitions queue ({@code <name>:permit:queue}). */
    public String queueKey() {
        return SemaphoreKeys.queue(name);
    }

    /**
     * The lock key that the acquisition at the head of the queue holds while it waits for permits to be released
     * ({@code <name>:permit:waiting}). While it is held, no acquisition that passes the queue keeps a permit.
     */
    public String waitingKey() {
        return SemaphoreKeys.waiting(name);
    }

    /**
     * One permit, waiting at most {@code waitTime}. Its lease is the registry's, renewed by the watchdog.
     *
     * @return the permit, or empty when none came free in time
     * @throws PermitCountConflictException when another instance declared the name with another count
     */
    public Optional<Permits> tryAcquire(Duration waitTime) throws InterruptedException {
        return tryAcquire(1, waitTime);
    }

    /**
     * {@code count} permits, all or none, waiting at most {@code waitTime}. Leases renewed by the watchdog.
     *
     * @return the permits, or empty when they did not come free in time (then nothing is held)
     */
    public Optional<Permits> tryAcquire(int count, Duration waitTime) throws InterruptedException {
        checkRequest(count, waitTime);
        return SemaphoreAcquisition.runHere(this, count, waitTime, Optional.empty());
    }

    /**
     * {@code count} permits, all or none, waiting at most {@code waitTime}. Each permit's lease ends {@code leaseTime}
     * after its grant and is not renewed ({@link Permit#extend} moves it).
     */
    public Optional<Permits> tryAcquire(int count, Duration waitTime, Duration leaseTime) throws InterruptedException {
        check(leaseTime, "leaseTime", false);
        checkRequest(count, waitTime);
        return SemaphoreAcquisition.runHere(this, count, waitTime, Optional.of(leaseTime));
    }

    /**
     * As {@link #tryAcquire(int, Duration)}, without blocking the caller. Cancelling the future before it completes
     * withdraws the acquisition and releases whatever it took.
     */
    public CompletableFuture<Optional<Permits>> acquireAsync(int count, Duration waitTime) {
        return start(count, waitTime, Optional.empty());
    }

    /** As {@link #tryAcquire(int, Duration, Duration)}, without blocking the caller. Cancellable likewise. */
    public CompletableFuture<Optional<Permits>> acquireAsync(int count, Duration waitTime, Duration leaseTime) {
        check(leaseTime, "leaseTime", false);
        return start(count, waitTime, Optional.of(leaseTime));
    }

    /**
     * Who holds permits right now, as the backend has it recorded, whichever instance that is. One entry per held
     * permit, in slot order. Asks the backend once per permit.
     */
    public List<LockHolder> holders() {
        List<LockHolder> holders = new ArrayList<>();
        for (int slot = 0; slot < permits; slot++) {
            registry.holderOf(slotKey(slot)).ifPresent(holders::add);
        }
        return holders;
    }

    @Override
    public String toString() {
        return "LeasedSemaphore[" + name + ", " + permits + " permits on " + registry.backend() + "]";
    }

    private CompletableFuture<Optional<Permits>> start(int count, Duration waitTime, Optional<Duration> leaseTime) {
        checkRequest(count, waitTime);
        return SemaphoreAcquisition.start(this, count, waitTime, leaseTime);
    }

    private void checkRequest(int count, Duration waitTime) {
        if (count < 1 || count > permits) {
            throw new IllegalArgumentException("Semaphore '" + name + "' on " + registry.backend() + " has " + permits
                    + " permits; ask for 1 to " + permits + ", not " + count);
        }
        check(waitTime, "waitTime", true);
    }

    private void check(Duration value, String what, boolean zeroAllowed) {
        if (value == null) {
            throw new IllegalArgumentException(
                    what + " must not be null (semaphore '" + name + "', " + registry.backend() + " backend)");
        }
        if (value.isNegative() || (!zeroAllowed && value.isZero())) {
            throw new IllegalArgumentException(what + " must be " + (zeroAllowed ? "zero or more" : "positive")
                    + ", was " + DurationText.format(value) + " (semaphore '" + name + "', " + registry.backend()
                    + " backend)");
        }
    }

    /** Lets the backend check the longest keys up front, so that a bad name fails here rather than mid-acquisition. */
    private boolean checkKeys() {
        FencedLock queue;
        try {
            queue = registry.semaphoreLock(queueKey());
            registry.semaphoreLock(slotKey(permits - 1));
        } catch (IllegalArgumentException e) {
            String shown = name.length() <= 80 ? name : name.substring(0, 80) + "...";
            throw new IllegalArgumentException(
                    "Semaphore '" + shown + "' cannot be kept on " + registry.backend() + ": " + e.getMessage(), e);
        }
        try {
            queue.withNote(note);
            return true;
        } catch (UnsupportedOperationException e) {
            log.debug("The {} registry records no notes: semaphore '{}' cannot check permit counts", backend(), name);
            return false;
        }
    }

    LockRegistry registry() {
        return registry;
    }

    /** The lock of {@code key} recording this declaration's permit count with each hold, where the registry can. */
    FencedLock lock(String key) {
        FencedLock lock = registry.semaphoreLock(key);
        return notes ? lock.withNote(note) : lock;
    }

    /**
     * Whether a slot can be taken on the condition that nobody holds {@code <name>:permit:waiting}, both checked in one step
     * on the server ({@link FencedLock#tryAcquireUnlessHeld}). True until the registry says it cannot.
     */
    boolean guardsTakes() {
        return guardsTakes;
    }

    void cannotGuardTakes() {
        guardsTakes = false;
    }

    /** Who holds {@code <name>:permit:waiting}, read in two steps ({@link KeyHolders#readLater}). */
    Supplier<HolderRead> readWaitingLater() {
        return holders.readLater(waitingKey());
    }

    /** Fails when the holder of {@code key} declares another permit count ({@link KeyHolders#checkHolderOf}). */
    void checkHolderOf(String key) {
        holders.checkHolderOf(key);
    }

    /** As {@link #checkHolderOf}, for a holder of {@code key} read already. */
    void checkHolder(String key, Optional<LockHolder> holder) {
        holders.checkHolder(key, holder);
    }
}
