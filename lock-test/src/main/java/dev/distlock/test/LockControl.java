package dev.distlock.test;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a test steers and inspects in a {@link ControlledLockRegistry}: other instances' holds,
 * lost leases, an unreachable or slow backend, the test clock, and the history of what was
 * locked. Keys are the application's (the registry's key prefix is added here).
 */
public final class LockControl {

    private final TestLockServer server;
    private final LockRegistry registry;
    private final String keyPrefix;

    LockControl(TestLockServer server, ControlledLockRegistry registry) {
        this.server = server;
        this.registry = registry;
        this.keyPrefix = registry.options().keyPrefix();
    }

    /** The registry this controls. */
    public LockRegistry registry() {
        return registry;
    }

    /**
     * Another instance takes {@code key} until {@link #releaseElsewhere} (its hold never runs out).
     * {@code holder} is what {@link LockRegistry#holderOf} shows, e.g. {@code "billing@host-2"}.
     *
     * @return the other instance's token, larger than every earlier token of the key
     * @throws IllegalStateException when the key is held
     */
    public FencingToken holdElsewhere(String key, String holder) {
        return server.holdElsewhere(fullKey(key), key, checkHolder(holder), Optional.empty());
    }

    /** Another instance takes {@code key} for {@code time} on the test clock (see {@link #advance}). */
    public FencingToken holdElsewhere(String key, String holder, Duration time) {
        return server.holdElsewhere(fullKey(key), key, checkHolder(holder), Optional.of(positive(time, "time")));
    }

    /** The other instance lets {@code key} go. Waiters of this application may take it. False when it held nothing. */
    public boolean releaseElsewhere(String key) {
        return server.releaseElsewhere(fullKey(key));
    }

    /**
     * The current hold of {@code key} by this application loses its lease now, as when its lease ran
     * out unrenewed. The key is free on the server, the handle turns invalid at once, and its {@code
     * onLost} callbacks run (on a lease thread, right after). The next holder gets a larger token, so
     * a fenced resource that saw it refuses the lost hold's.
     *
     * @return the lost hold's token
     * @throws IllegalStateException when this application does not hold {@code key}
     */
    public FencingToken loseLease(String key) {
        return server.loseLease(fullKey(key), "its lease was lost (LockControl.loseLease)")
                .orElseThrow(() -> new IllegalStateException(
                        "Lock '" + key + "' is not held by this application, so it has no lease to lose"));
    }

    /**
     * Loses the current hold's lease (see {@link #loseLease}) and gives the key to another instance,
     * as when a paused holder's lease ran out and the next holder came.
     *
     * @return the other instance's token
     */
    public FencingToken takeOver(String key, String holder) {
        loseLease(key);
        return holdElsewhere(key, holder);
    }

    /**
     * The next {@code calls} calls to the backend fail as they fail when the server is down: {@link
     * dev.distlock.core.LockBackendException} (an acquisition rides the outage out while its wait
     * lasts, then fails). Renewals made by {@link #advance} count as calls.
     */
    public void unreachableForCalls(int calls) {
        server.faults().failCalls(calls);
    }

    /** The backend is unreachable for {@code time} from now on the test clock (see {@link #unreachableForCalls}). */
    public void unreachableFor(Duration time) {
        server.faults().failUntil(server.now() + positive(time, "time").toNanos());
    }

    /** The next {@code calls} calls to the backend each take {@code delay} longer (real time). */
    public void slowForCalls(int calls, Duration delay) {
        server.faults().slowCalls(calls, delay);
    }

    /** Every call to the backend during {@code time} from now on the test clock takes {@code delay} longer. */
    public void slowFor(Duration time, Duration delay) {
        server.faults().slowUntil(server.now() + positive(time, "time").toNanos(), delay);
    }

    /** Ends outages and slowness. */
    public void backendRecovered() {
        server.faults().clear();
    }

    /**
     * Moves the test clock on by {@code time} instead of sleeping. Fixed leases and minimum holds
     * that end meanwhile end, other instances' timed holds end, and watchdog holds are renewed every
     * third of their lease unless the backend is unreachable then, in which case they are lost when
     * their lease runs out. Holders are told before this returns. Waiters are woken.
     */
    public void advance(Duration time) {
        server.advance(time);
    }

    /** How long the test clock has run since its server started, advances included. */
    public Duration now() {
        return server.elapsed();
    }

    /** What happened so far. */
    public LockHistory history() {
        return server.history();
    }

    /**
     * Fails with an {@link AssertionError} when the calling thread does not hold {@code key} with a
     * valid lease, and records the call in {@link LockHistory#unheldCalls()}, where it shows even if
     * the error was swallowed. For use inside the code under test, e.g. in a fake repository.
     */
    public void assertHeld(String key) {
        if (!isHeld(key)) {
            String thread = Thread.currentThread().getName();
            server.recordCall(LockEvent.Kind.UNHELD_CALL, key, "called without the lock");
            throw new AssertionError("Thread '" + thread + "' ran without holding lock '" + key + "' (it must hold it"
                    + " here); history of the key: " + history().events(key));
        }
    }

    /** Whether the calling thread holds {@code key} with a lease that is still valid. */
    public boolean isHeld(String key) {
        return registry.obtain(key).isHeldByCurrentThread()
                && registry.holds().stream().anyMatch(hold -> hold.key().equals(key) && hold.valid());
    }

    /**
     * Back to a clean server. Other instances' holds end, this application's remaining holds are
     * lost, outages and slowness end, the history is emptied. The clock keeps its time.
     */
    public void reset() {
        server.faults().clear();
        server.clear();
        server.history().clear();
    }

    private String fullKey(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("A lock key must not be blank, was '" + key + "'");
        }
        return keyPrefix + key;
    }

    private static String checkHolder(String holder) {
        Objects.requireNonNull(holder, "holder");
        if (holder.isBlank()) {
            throw new IllegalArgumentException("Describe the other instance's holder, e.g. \"billing@host-2\"");
        }
        return holder;
    }

    private static Duration positive(Duration time, String what) {
        if (time.isNegative() || time.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + time);
        }
        return time;
    }
}
