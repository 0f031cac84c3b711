package dev.distlock.integration;

import java.util.ArrayList;
import java.util.List;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;

/**
 * Spring Integration candidates that record grants and revocations in one order, and detect two
 * leaders at once: a grant while another candidate has not been revoked yet is an overlap.
 */
final class Candidates {

    /** One grant or revocation and when it was recorded. */
    record Event(String candidate, boolean granted, long atNanos) {}

    private final List<Event> events = new ArrayList<>();
    private final List<String> leaders = new ArrayList<>();
    private int maxLeaders;

    Candidate candidate(String id, String role) {
        return new AbstractCandidate(id, role) {
            @Override
            public void onGranted(Context ctx) {
                record(id, true);
            }

            @Override
            public void onRevoked(Context ctx) {
                record(id, false);
            }
        };
    }

    private synchronized void record(String candidate, boolean granted) {
        events.add(new Event(candidate, granted, System.nanoTime()));
        if (granted) {
            leaders.add(candidate);
            maxLeaders = Math.max(maxLeaders, leaders.size());
        } else {
            leaders.remove(candidate);
        }
        notifyAll();
    }

    synchronized int maxLeaders() {
        return maxLeaders;
    }

    synchronized List<String> leaders() {
        return List.copyOf(leaders);
    }

    synchronized List<Event> events() {
        return List.copyOf(events);
    }

    /** Waits until {@code candidate} was revoked, at most {@code timeoutMillis}. */
    synchronized void awaitRevoked(String candidate, long timeoutMillis) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMillis;
        while (events.stream().noneMatch(e -> e.candidate().equals(candidate) && !e.granted())) {
            long left = end - System.currentTimeMillis();
            if (left <= 0) {
                throw new AssertionError(candidate + " not revoked after " + timeoutMillis + " ms: " + events);
            }
            wait(left);
        }
    }

    /** Waits until {@code grants} grants were recorded, at most {@code timeoutMillis}; that grant. */
    synchronized Event awaitGrants(int grants, long timeoutMillis) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            List<Event> granted = events.stream().filter(Event::granted).toList();
            if (granted.size() >= grants) {
                return granted.get(grants - 1);
            }
            long left = end - System.currentTimeMillis();
            if (left <= 0) {
                throw new AssertionError("Only " + granted.size() + " of " + grants + " grants after " + timeoutMillis
                        + " ms: " + events);
            }
            wait(left);
        }
    }
}
