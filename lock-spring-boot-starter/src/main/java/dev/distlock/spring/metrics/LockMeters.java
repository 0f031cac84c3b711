package dev.distlock.spring.metrics;

import dev.distlock.core.FencingToken;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The meters of one lock registry, fed by its events. They are {@value #ACQUISITION}, {@value #HELD},
 * {@value #LEASE_LOSSES} and {@value #BACKEND_ERRORS}, tagged {@code backend} and {@code lock.name}.
 */
final class LockMeters implements LockObserver {

    static final String ACQUISITION = "distlock.acquisition";
    static final String HELD = "distlock.held";
    static final String LEASE_LOSSES = "distlock.lease.losses";
    static final String BACKEND_ERRORS = "distlock.backend.errors";

    private final MeterRegistry meters;
    private final LockNames names;
    private final String keyPrefix;
    private final Map<String, Timer> acquisitionTimers = new ConcurrentHashMap<>();
    // Readers of one write epoch may share key, token and owner name, so one hold id can stand for several holds.
    // Each keeps its own sample until one of them ends.
    private final Map<HoldId, Deque<LongTaskTimer.Sample>> holds = new ConcurrentHashMap<>();

    /**
     * @param keyPrefix the registry's key prefix, taken off the full keys that backend errors carry
     */
    LockMeters(MeterRegistry meters, LockNames names, String keyPrefix) {
        this.meters = meters;
        this.names = names;
        this.keyPrefix = keyPrefix;
    }

    @Override
    public void acquisitionEnded(String backend, String key, Outcome outcome, Duration waited) {
        String lockName = names.of(key);
        String outcomeTag = outcome.name().toLowerCase(Locale.ROOT);
        acquisitionTimers
                .computeIfAbsent(
                        backend + '\n' + lockName + '\n' + outcomeTag,
                        id -> Timer.builder(ACQUISITION)
                                .description("Lock acquisition attempts and how long each waited")
                                .tags("backend", backend, "lock.name", lockName, "outcome", outcomeTag)
                                .register(meters))
                .record(waited);
    }

    @Override
    public void holdStarted(HoldInfo hold) {
        LongTaskTimer held = LongTaskTimer.builder(HELD)
                .description("Locks held by this instance now, and for how long")
                .tags("backend", hold.backend(), "lock.name", names.of(hold.key()))
                .register(meters);
        LongTaskTimer.Sample sample = held.start();
        holds.compute(HoldId.of(hold), (id, samples) -> {
            Deque<LongTaskTimer.Sample> started = samples == null ? new ArrayDeque<>(1) : samples;
            started.addLast(sample);
            return started;
        });
    }

    @Override
    public void holdEnded(HoldInfo hold) {
        holds.computeIfPresent(HoldId.of(hold), (id, samples) -> {
            samples.removeFirst().stop();
            return samples.isEmpty() ? null : samples;
        });
    }

    @Override
    public void leaseLost(HoldInfo hold, String reason) {
        Counter.builder(LEASE_LOSSES)
                .description("Holds whose lease was lost before their owner released them")
                .tags("backend", hold.backend(), "lock.name", names.of(hold.key()))
                .register(meters)
                .increment();
    }

    @Override
    public void backendError(String backend, String key, RuntimeException error) {
        String callerKey = key != null && key.startsWith(keyPrefix) ? key.substring(keyPrefix.length()) : key;
        Counter.builder(BACKEND_ERRORS)
                .description("Backend calls (acquire, renew, release) that failed")
                .tags(
                        "backend",
                        backend,
                        "lock.name",
                        names.of(callerKey),
                        "exception",
                        error.getClass().getSimpleName())
                .register(meters)
                .increment();
    }

    /** A plain or write hold, whose token is unique to it. Reads may share one with other reads. */
    private record HoldId(String fullKey, HoldInfo.Kind kind, FencingToken token, String owner) {
        static HoldId of(HoldInfo hold) {
            return new HoldId(hold.fullKey(), hold.kind(), hold.token(), hold.owner());
        }
    }
}
