package dev.distlock.core.leader;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One candidate's campaign for the leadership of a name: it leads while it holds the lock on key
 * {@code name} of its registry (lease renewed by the watchdog), and campaigns again whenever it does
 * not. A term's epoch is that hold's fencing token, so epochs rise strictly across terms and a
 * resource that checks tokens refuses a deposed leader.
 *
 * <p>{@link #isLeader()} turns false the moment the engine's local view of the lease ends, which is
 * never later than the server's, so no other candidate can be granted while it still answers true.
 * The listener's {@code revoked} follows on the campaign thread. A candidate that {@link #resign()}s
 * is revoked first and then releases the name, so a waiting candidate takes over at once.
 *
 * <p>Any instance, candidate or not, reads who leads from the server with {@link #leaderOf} and follows it with
 * {@link #observe}: the leader's holder description, its epoch, and the value it publishes with its term
 * ({@link CampaignOptions#withValue}).
 */
public final class Leadership implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Leadership.class);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final LockRegistry registry;
    private final String name;
    private final LeadershipListener listener;
    private final CampaignOptions options;
    private final Thread thread;
    private final Object monitor = new Object();

    /** The lock campaigned with, and the value its holds record; replaced by {@link #changeValue}. */
    private volatile Ballot ballot;

    private volatile Term term;
    private volatile boolean closed;
    private volatile boolean resignRequested;
    /** True while the campaign thread waits for the name: the only time close() interrupts it. */
    private boolean acquiring;

    private Leadership(LockRegistry registry, String name, LeadershipListener listener, CampaignOptions options) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.name = name;
        this.listener = Objects.requireNonNull(listener, "listener");
        this.options = Objects.requireNonNull(options, "options");
        this.ballot = ballot(registry, name, options.value());
        this.thread = new Thread(this::campaign, "distlock-leader-" + name);
        this.thread.setDaemon(true);
    }

    /**
     * Starts campaigning for {@code name} on {@code registry} with the default {@link CampaignOptions}.
     *
     * @throws IllegalArgumentException if the name is not a valid key for the registry's backend, or the options'
     *     value cannot be recorded (not printable ASCII, too long)
     */
    public static Leadership campaign(LockRegistry registry, String name, LeadershipListener listener) {
        return campaign(registry, name, listener, CampaignOptions.defaults());
    }

    /** Starts campaigning for {@code name} on {@code registry}; see {@link CampaignOptions}. */
    public static Leadership campaign(
            LockRegistry registry, String name, LeadershipListener listener, CampaignOptions options) {
        Leadership leadership = new Leadership(registry, name, listener, options);
        leadership.thread.start();
        return leadership;
    }

    /**
     * Who leads {@code name} on {@code registry}'s server right now, whichever instance that is (one call to the
     * server); empty when nobody does. The epoch is the one the leader's own {@link #epoch()} reports.
     *
     * @throws IllegalArgumentException if the name is not a valid key for the registry's backend
     * @throws dev.distlock.core.LockBackendException when the server could not tell
     */
    public static Optional<Leader> leaderOf(LockRegistry registry, String name) {
        Objects.requireNonNull(registry, "registry");
        return registry.holderOf(keyOf(name)).map(holder -> Leader.of(name, holder));
    }

    /** Observes who leads {@code name} with the default {@link ObserveOptions}. */
    public static LeaderSubscription observe(LockRegistry registry, String name, LeaderObserver observer) {
        return observe(registry, name, observer, ObserveOptions.defaults());
    }

    /**
     * Tells {@code observer} who leads {@code name} on {@code registry}'s server, at once and then at each change,
     * until the returned subscription is closed. Works on any instance, candidate or not. The server is read every
     * {@link ObserveOptions#pollInterval()}, so a change is told at most that plus one read after it happened; when
     * a candidate on the same registry instance begins or ends a term, its observers read at once. An outage is told
     * as {@link LeaderObserver#leaderUnknown}, never as "no leader". All subscriptions share one timer thread and a
     * pool whose threads end when idle.
     *
     * @throws IllegalArgumentException if the name is not a valid key for the registry's backend
     */
    public static LeaderSubscription observe(
            LockRegistry registry, String name, LeaderObserver observer, ObserveOptions options) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(observer, "observer");
        Objects.requireNonNull(options, "options");
        registry.obtain(keyOf(name)); // checks the name before anything is scheduled
        LeaderPoller poller = new LeaderPoller(registry, name, keyOf(name), observer, options);
        poller.start();
        return poller;
    }

    /** The lock key of the leadership of {@code name}: every candidate and observer derives it here. */
    private static String keyOf(String name) {
        return name;
    }

    /** The name campaigned for (the lock key). */
    public String name() {
        return name;
    }

    /**
     * True while this candidate leads and its lease is not known to be lost; false from the moment
     * {@link #resign()} or {@link #close()} is called.
     */
    public boolean isLeader() {
        return currentTerm() != null;
    }

    /** The fencing token of the current term while this candidate leads; empty otherwise. */
    public Optional<FencingToken> epoch() {
        Term current = currentTerm();
        return current == null ? Optional.empty() : Optional.of(current.handle().token());
    }

    /**
     * The value the current term publishes while this candidate leads (what {@link #leaderOf} shows every
     * instance); empty when it does not lead or publishes none.
     */
    public Optional<String> value() {
        Term current = currentTerm();
        return current == null ? Optional.empty() : current.value();
    }

    /**
     * Publishes {@code value} (null: none) with this candidate's next terms. The current term keeps the value it was
     * granted with: the server records the value with the term's hold when it is granted, and a hold's record does
     * not change while it lasts ({@link FencedLock#withNote}). To publish the new value at once, {@link #resign()}
     * after this; the next term, this candidate's or another's, shows its own candidate's value.
     *
     * @throws IllegalArgumentException if the value cannot be recorded (not printable ASCII, too long)
     */
    public void changeValue(String value) {
        ballot = ballot(registry, name, Optional.ofNullable(value));
    }

    private Term currentTerm() {
        Term current = term;
        return current != null && current.handle().isValid() && !resignRequested && !closed ? current : null;
    }

    private static Ballot ballot(LockRegistry registry, String name, Optional<String> value) {
        FencedLock plain = registry.obtain(keyOf(name));
        if (value.isEmpty()) {
            return new Ballot(plain, value);
        }
        try {
            return new Ballot(plain.withNote(value.get()), value);
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            throw new IllegalArgumentException(
                    "Leadership of '" + name + "' on " + registry.backend() + " cannot publish its value: "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * Ends the current term, if any: the listener is revoked and the name released on the campaign
     * thread right away, and this candidate campaigns again after {@link CampaignOptions#rejoinDelay()}.
     * Returns without waiting for the hand-over.
     */
    public void resign() {
        synchronized (monitor) {
            if (term != null) {
                resignRequested = true;
                monitor.notifyAll();
            }
        }
    }

    /**
     * Stops campaigning; a leader is revoked and releases the name. Waits for that up to a few
     * seconds (not at all when called from a listener).
     */
    @Override
    public void close() {
        synchronized (monitor) {
            closed = true;
            monitor.notifyAll();
            if (acquiring) {
                thread.interrupt();
            }
        }
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join(CLOSE_WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn(
                    "Leadership of '{}' on {} did not stop within {}: a listener callback or a release is still"
                            + " running on thread {}",
                    name,
                    registry.backend(),
                    CLOSE_WAIT,
                    thread.getName());
        }
    }

    private void campaign() {
        while (!closed) {
            Ballot current = ballot;
            Optional<LockHandle> granted = acquire(current.lock());
            if (granted.isPresent() && lead(new Term(granted.get(), current.value())) && !closed) {
                pause(options.rejoinDelay());
            }
        }
    }

    /** Waits for the name; empty when closed, or after a pause when the backend failed. */
    private Optional<LockHandle> acquire(FencedLock lock) {
        synchronized (monitor) {
            if (closed) {
                return Optional.empty();
            }
            acquiring = true;
        }
        try {
            return Optional.of(lock.acquire());
        } catch (InterruptedException e) {
            return Optional.empty();
        } catch (IllegalStateException e) {
            if (!closed) {
                log.warn("Leadership of '{}' stops campaigning: {}", name, e.getMessage());
                closed = true;
            }
            return Optional.empty();
        } catch (RuntimeException e) {
            log.warn(
                    "Leadership of '{}' could not campaign on {}; retrying in {}: {}",
                    name,
                    registry.backend(),
                    options.retryDelay(),
                    e.getMessage());
            pause(options.retryDelay());
            return Optional.empty();
        } finally {
            synchronized (monitor) {
                acquiring = false;
                // An interrupt from close() that came as the name was granted must not reach the release.
                Thread.interrupted();
            }
        }
    }

    /**
     * One term, from grant to revocation and release.
     *
     * @return true when the term ended because this candidate resigned
     */
    private boolean lead(Term granted) {
        LockHandle handle = granted.handle();
        FencingToken epoch = handle.token();
        handle.onLost(this::wake);
        term = granted;
        log.info("Leadership of '{}' on {} granted, epoch {}", name, registry.backend(), epoch);
        Observations.termChanged(registry, name);
        notifyListener("granted", () -> listener.granted(epoch, granted.value()));
        boolean resigned = awaitEnd(handle);
        term = null;
        resignRequested = false;
        log.info("Leadership of '{}' on {} revoked, epoch {}", name, registry.backend(), epoch);
        notifyListener("revoked", () -> listener.revoked(epoch));
        try {
            handle.close();
        } catch (RuntimeException e) {
            log.warn(
                    "Leadership of '{}' on {} could not release its name; other candidates take over when its lease"
                            + " ends: {}",
                    name,
                    registry.backend(),
                    e.getMessage());
        }
        Observations.termChanged(registry, name);
        return resigned;
    }

    /** Waits until the term must end; true when that is because of a resignation. */
    private boolean awaitEnd(LockHandle handle) {
        synchronized (monitor) {
            try {
                while (!closed && !resignRequested && handle.isValid()) {
                    monitor.wait(options.checkInterval().toMillis());
                }
            } catch (InterruptedException e) {
                // close() interrupts: the flag it set ends the term.
            }
            return resignRequested;
        }
    }

    private void wake() {
        synchronized (monitor) {
            monitor.notifyAll();
        }
    }

    private void pause(Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        synchronized (monitor) {
            long left;
            while (!closed && (left = end - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(monitor, left);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void notifyListener(String event, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.warn("The leadership listener of '{}' failed when {}", name, event, e);
        }
    }

    @Override
    public String toString() {
        return "Leadership[" + name + " on " + registry.backend() + ", leader=" + isLeader() + "]";
    }

    /** The lock a campaign acquires and the value its holds record. */
    private record Ballot(FencedLock lock, Optional<String> value) {}

    /** One term: its hold and the value recorded with it. */
    private record Term(LockHandle handle, Optional<String> value) {}
}
