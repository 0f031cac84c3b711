package dev.distlock.core.leader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Records every candidate's grants and revocations in one order and detects two leaders at once:
 * a grant while another candidate's term has not been revoked yet is an overlap. Part of the
 * test-jar, for the per-backend leadership tests.
 */
public final class LeaderLog {

    /** One grant or revocation, with the time it was recorded. */
    public record Event(String candidate, boolean granted, FencingToken epoch, long atNanos) {}

    private final List<Event> events = new ArrayList<>();
    private final List<String> leaders = new ArrayList<>();
    private int maxLeaders;

    /** A listener that records into this log under {@code candidate}'s name. */
    public LeadershipListener listener(String candidate) {
        return new LeadershipListener() {
            @Override
            public void granted(FencingToken epoch) {
                record(candidate, true, epoch);
            }

            @Override
            public void revoked(FencingToken epoch) {
                record(candidate, false, epoch);
            }
        };
    }

    private synchronized void record(String candidate, boolean granted, FencingToken epoch) {
        events.add(new Event(candidate, granted, epoch, System.nanoTime()));
        if (granted) {
            leaders.add(candidate);
            maxLeaders = Math.max(maxLeaders, leaders.size());
        } else {
            leaders.remove(candidate);
        }
        notifyAll();
    }

    /** The most candidates that led at once. */
    public synchronized int maxLeaders() {
        return maxLeaders;
    }

    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    /** The epochs of all grants, in the order they were granted. */
    public synchronized List<Long> grantedEpochs() {
        return events.stream()
                .filter(Event::granted)
                .map(e -> e.epoch().value())
                .toList();
    }

    public synchronized int grants() {
        return (int) events.stream().filter(Event::granted).count();
    }

    /** Waits until {@code grants} grants were recorded, at most {@code timeoutMillis}; the last event then. */
    public synchronized Event awaitGrants(int grants, long timeoutMillis) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMillis;
        while (grants() < grants) {
            long left = end - System.currentTimeMillis();
            if (left <= 0) {
                throw new AssertionError(
                        "Only " + grants() + " of " + grants + " grants after " + timeoutMillis + " ms: " + events);
            }
            wait(left);
        }
        return events.stream()
                .filter(Event::granted)
                .skip(grants - 1)
                .findFirst()
                .orElseThrow();
    }

    /** Waits until {@code count} events were recorded, at most {@code timeoutMillis}; all events then. */
    public synchronized List<Event> awaitEvents(int count, long timeoutMillis) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMillis;
        while (events.size() < count) {
            long left = end - System.currentTimeMillis();
            if (left <= 0) {
                throw new AssertionError(
                        "Only " + events.size() + " of " + count + " events after " + timeoutMillis + " ms: " + events);
            }
            wait(left);
        }
        return List.copyOf(events);
    }

    /** The events as "a+" (a granted) and "a-" (a revoked), in the order they came. */
    public synchronized List<String> sequence() {
        return events.stream()
                .map(e -> e.candidate() + (e.granted() ? "+" : "-"))
                .toList();
    }

    /** Waits until {@code candidate} was revoked, at most {@code timeoutMillis}. */
    public synchronized void awaitRevoked(String candidate, long timeoutMillis) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMillis;
        while (events.stream().noneMatch(e -> e.candidate().equals(candidate) && !e.granted())) {
            long left = end - System.currentTimeMillis();
            if (left <= 0) {
                throw new AssertionError(candidate + " not revoked after " + timeoutMillis + " ms: " + events);
            }
            wait(left);
        }
    }

    /**
     * Lets {@code terms} leaders resign one after the other, then checks that no two candidates
     * led at once and that every term's epoch is above the one before.
     */
    public void resignRounds(Map<String, Leadership> candidates, int terms, long timeoutMillis)
            throws InterruptedException {
        for (int term = 1; term <= terms; term++) {
            awaitGrants(term, timeoutMillis);
            candidates.get(leader()).resign();
        }
        awaitGrants(terms + 1, timeoutMillis);

        assertThat(maxLeaders()).as("candidates leading at once").isEqualTo(1);
        List<Long> epochs = grantedEpochs();
        for (int i = 1; i < epochs.size(); i++) {
            assertThat(epochs.get(i)).as("epoch of term %d", i + 1).isGreaterThan(epochs.get(i - 1));
        }
    }

    /** The candidate that leads now according to the log; null when none. */
    public synchronized String leader() {
        return leaders.isEmpty() ? null : leaders.get(leaders.size() - 1);
    }
}
