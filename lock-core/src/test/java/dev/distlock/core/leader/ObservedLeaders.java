package dev.distlock.core.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A {@link LeaderObserver} that records what it is told, in order, and checks that one observer's epochs never go
 * backwards nor repeat. Part of the test-jar, for the per-backend leadership tests.
 */
public final class ObservedLeaders implements LeaderObserver {

    /** One call: a leader, no leader (both with {@code unknown} null), or an unknown leader. */
    public record Told(Optional<Leader> leader, RuntimeException unknown) {

        public boolean isUnknown() {
            return unknown != null;
        }

        public boolean isNoLeader() {
            return unknown == null && leader.isEmpty();
        }

        @Override
        public String toString() {
            return isUnknown()
                    ? "unknown"
                    : leader.map(l -> l.epoch() + l.value().map(v -> "=" + v).orElse(""))
                            .orElse("none");
        }
    }

    private final List<Told> told = new ArrayList<>();
    private final List<String> names = new ArrayList<>();

    @Override
    public synchronized void leaderChanged(String name, Optional<Leader> leader) {
        told.add(new Told(leader, null));
        names.add(name);
        notifyAll();
    }

    @Override
    public synchronized void leaderUnknown(String name, RuntimeException cause) {
        told.add(new Told(Optional.empty(), cause));
        names.add(name);
        notifyAll();
    }

    public synchronized List<Told> told() {
        return List.copyOf(told);
    }

    /** The names the observer was told about (one per call). */
    public synchronized List<String> names() {
        return List.copyOf(names);
    }

    /** The epochs of the leaders told, in order. */
    public synchronized List<Long> epochs() {
        return told.stream()
                .flatMap(t -> t.leader().stream())
                .map(l -> l.epoch().value())
                .toList();
    }

    /** Waits until a call matches {@code what}, at most {@code timeoutMillis}; that call then. */
    public synchronized Told await(String description, Predicate<Told> what, long timeoutMillis)
            throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            Optional<Told> found = told.stream().filter(what).findFirst();
            if (found.isPresent()) {
                return found.get();
            }
            long left = end - System.currentTimeMillis();
            if (left <= 0) {
                throw new AssertionError("Not told " + description + " within " + timeoutMillis + " ms; told: " + told);
            }
            wait(left);
        }
    }

    /** Waits until the leader of epoch {@code epoch} was told, at most {@code timeoutMillis}; that leader then. */
    public Leader awaitLeader(long epoch, long timeoutMillis) throws InterruptedException {
        return await(
                        "the leader of epoch " + epoch,
                        t -> t.leader().isPresent() && t.leader().get().epoch().value() == epoch,
                        timeoutMillis)
                .leader()
                .orElseThrow();
    }

    /** Waits until {@code count} calls were made, at most {@code timeoutMillis}; all calls then. */
    public synchronized List<Told> awaitCalls(int count, long timeoutMillis) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMillis;
        while (told.size() < count) {
            long left = end - System.currentTimeMillis();
            if (left <= 0) {
                throw new AssertionError(
                        "Only " + told.size() + " of " + count + " calls within " + timeoutMillis + " ms: " + told);
            }
            wait(left);
        }
        return List.copyOf(told);
    }

    /** Checks that the epochs told rise strictly: none repeated, none going backwards. */
    public synchronized void assertEpochsRiseStrictly() {
        List<Long> epochs = epochs();
        for (int i = 1; i < epochs.size(); i++) {
            assertThat(epochs.get(i))
                    .as("epoch told after %s (all told: %s)", epochs.get(i - 1), told)
                    .isGreaterThan(epochs.get(i - 1));
        }
    }
}
