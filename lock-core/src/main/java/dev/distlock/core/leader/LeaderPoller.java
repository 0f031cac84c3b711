package dev.distlock.core.leader;

import dev.distlock.core.LockException;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subscription of {@link Leadership#observe}. Reads who holds the name's key, one read at a time, every poll
 * interval and at once when a candidate of the same registry begins or ends a term. Tells its observer what changed.
 * At most one read is under way, and the observer is told under this object's monitor (see {@code
 * docs/internals/recipes.md}).
 */
final class LeaderPoller implements LeaderSubscription {

    private static final Logger log = LoggerFactory.getLogger(LeaderPoller.class);

    /** What the observer was told last. */
    private enum Told {
        NOTHING,
        LEADER,
        NO_LEADER,
        UNKNOWN
    }

    private final LockRegistry registry;
    private final String name;
    private final String key;
    private final LeaderObserver observer;
    private final ObserveOptions options;

    // Guarded by this.
    private boolean closed;
    /** A read is under way. */
    private boolean reading;
    /** Read again as soon as the read under way returned. A term changed meanwhile. */
    private boolean readAgain;
    /** Numbers the reads, so that a timeout knows whether its read is still the one under way. */
    private long reads;
    /** The next read while none is under way. The timeout of the read under way otherwise. */
    private ScheduledFuture<?> pending;

    private Told told = Told.NOTHING;
    /** The highest epoch told. 0 before any (tokens are positive). */
    private long epoch;

    LeaderPoller(LockRegistry registry, String name, String key, LeaderObserver observer, ObserveOptions options) {
        this.registry = registry;
        this.name = name;
        this.key = key;
        this.observer = observer;
        this.options = options;
    }

    void start() {
        Observations.subscribe(registry, name, this);
        readNow();
    }

    @Override
    public String name() {
        return name;
    }

    /** Reads at once, or right after the read under way. */
    void readNow() {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (reading) {
                readAgain = true;
                return;
            }
            startRead();
        }
    }

    private void startRead() {
        cancelPending();
        reading = true;
        long read = ++reads;
        pending = Observations.schedule(() -> timedOut(read), options.callTimeout());
        Observations.run(this::read);
    }

    private void read() {
        Optional<LockHolder> found = Optional.empty();
        RuntimeException failure = null;
        try {
            found = registry.holderOf(key);
        } catch (RuntimeException e) {
            failure = e;
        } catch (Error e) { // the subscription goes on. The error is the observer's to see
            failure = new LockException("Reading who leads '" + name + "' on " + registry.backend() + " failed", e);
        }
        synchronized (this) {
            reading = false;
            if (closed) {
                return;
            }
            cancelPending();
            if (failure != null) {
                unknown(failure);
            } else {
                seen(found.map(holder -> Leader.of(name, holder)));
            }
            if (closed) { // by the observer
                return;
            }
            if (readAgain) {
                readAgain = false;
                startRead();
            } else {
                pending = Observations.schedule(this::readNow, options.pollInterval());
            }
        }
    }

    private synchronized void timedOut(long read) {
        if (!closed && reading && reads == read) {
            unknown(new LockException("The " + registry.backend() + " server gave no answer within "
                    + options.callTimeout() + " to who holds '" + name + "'"));
        }
    }

    private void seen(Optional<Leader> leader) {
        if (leader.isPresent()) {
            long seen = leader.get().epoch().value();
            if (seen < epoch || (seen == epoch && told == Told.LEADER)) {
                return; // an older term (a lagging read), or the term already told
            }
            epoch = seen;
        } else if (told == Told.NO_LEADER) {
            return;
        }
        if (told == Told.UNKNOWN) {
            log.info("Who leads '{}' on {} is known again", name, registry.backend());
        }
        told = leader.isPresent() ? Told.LEADER : Told.NO_LEADER;
        try {
            observer.leaderChanged(name, leader);
        } catch (RuntimeException e) {
            log.warn("The leader observer of '{}' failed", name, e);
        }
    }

    private void unknown(RuntimeException cause) {
        if (told == Told.UNKNOWN) {
            return;
        }
        told = Told.UNKNOWN;
        log.warn(
                "Who leads '{}' on {} is unknown until the server answers again: {}",
                name,
                registry.backend(),
                cause.getMessage());
        try {
            observer.leaderUnknown(name, cause);
        } catch (RuntimeException e) {
            log.warn("The leader observer of '{}' failed", name, e);
        }
    }

    private void cancelPending() {
        if (pending != null) {
            pending.cancel(false);
            pending = null;
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            cancelPending();
        }
        Observations.unsubscribe(registry, name, this);
    }

    @Override
    public String toString() {
        return "LeaderSubscription[" + name + " on " + registry.backend() + "]";
    }
}
