package dev.distlock.core.leader;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The campaign thread of one {@link Leadership} candidate. Waits for the name, leads a term until it is lost, resigned
 * or closed, then campaigns again.
 */
final class Campaign {

    /** The category {@code docs/telemetry.md} lists for these messages. */
    private static final Logger log = LoggerFactory.getLogger(Leadership.class);

    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final LockRegistry registry;
    private final String name;
    private final LeadershipListener listener;
    private final CampaignOptions options;
    private final Thread thread;
    private final Object monitor = new Object();

    /** The lock campaigned with, and the value its holds record. Replaced by {@link #changeValue}. */
    private volatile Ballot ballot;

    private volatile Term term;
    private volatile boolean closed;
    private volatile boolean resignRequested;
    /** True while the campaign thread waits for the name. The only time close() interrupts it. */
    private boolean acquiring;

    Campaign(LockRegistry registry, String name, LeadershipListener listener, CampaignOptions options) {
        this.registry = registry;
        this.name = name;
        this.listener = listener;
        this.options = options;
        this.ballot = ballot(registry, name, options.value());
        this.thread = new Thread(this::campaign, "distlock-leader-" + name);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** The current term while this candidate leads and has neither resigned nor closed. Null otherwise. */
    Term currentTerm() {
        Term current = term;
        return current != null && current.handle().isValid() && !resignRequested && !closed ? current : null;
    }

    /** Records {@code value} with the next terms' holds. */
    void changeValue(Optional<String> value) {
        ballot = ballot(registry, name, value);
    }

    private static Ballot ballot(LockRegistry registry, String name, Optional<String> value) {
        FencedLock plain = registry.obtain(Leadership.keyOf(name));
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

    /** Ends the current term, if any, on the campaign thread. */
    void resign() {
        synchronized (monitor) {
            if (term != null) {
                resignRequested = true;
                monitor.notifyAll();
            }
        }
    }

    /** Stops campaigning and waits a few seconds for the release (not at all from the campaign thread). */
    void close() {
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

    /** Waits for the name. Empty when closed, or after a pause when the backend failed. */
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

    /** Waits until the term must end. True when that is because of a resignation. */
    private boolean awaitEnd(LockHandle handle) {
        synchronized (monitor) {
            try {
                while (!closed && !resignRequested && handle.isValid()) {
                    monitor.wait(options.checkInterval().toMillis());
                }
            } catch (InterruptedException e) {
                // close() interrupts, and the flag it set ends the term.
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

    /** The lock a campaign acquires and the value its holds record. */
    private record Ballot(FencedLock lock, Optional<String> value) {}

    /** One term, with its hold and the value recorded with it. */
    record Term(LockHandle handle, Optional<String> value) {}
}
