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
 */
public final class Leadership implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Leadership.class);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final LockRegistry registry;
    private final String name;
    private final FencedLock lock;
    private final LeadershipListener listener;
    private final CampaignOptions options;
    private final Thread thread;
    private final Object monitor = new Object();

    private volatile LockHandle term;
    private volatile boolean closed;
    private volatile boolean resignRequested;
    /** True while the campaign thread waits for the name: the only time close() interrupts it. */
    private boolean acquiring;

    private Leadership(LockRegistry registry, String name, LeadershipListener listener, CampaignOptions options) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.name = name;
        this.lock = registry.obtain(name);
        this.listener = Objects.requireNonNull(listener, "listener");
        this.options = Objects.requireNonNull(options, "options");
        this.thread = new Thread(this::campaign, "distlock-leader-" + name);
        this.thread.setDaemon(true);
    }

    /**
     * Starts campaigning for {@code name} on {@code registry} with the default {@link CampaignOptions}.
     *
     * @throws IllegalArgumentException if the name is not a valid key for the registry's backend
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
        LockHandle current = currentTerm();
        return current == null ? Optional.empty() : Optional.of(current.token());
    }

    private LockHandle currentTerm() {
        LockHandle current = term;
        return current != null && current.isValid() && !resignRequested && !closed ? current : null;
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
            Optional<LockHandle> granted = acquire();
            if (granted.isPresent() && lead(granted.get()) && !closed) {
                pause(options.rejoinDelay());
            }
        }
    }

    /** Waits for the name; empty when closed, or after a pause when the backend failed. */
    private Optional<LockHandle> acquire() {
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
    private boolean lead(LockHandle handle) {
        FencingToken epoch = handle.token();
        handle.onLost(this::wake);
        term = handle;
        log.info("Leadership of '{}' on {} granted, epoch {}", name, registry.backend(), epoch);
        notifyListener("granted", () -> listener.granted(epoch));
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
}
