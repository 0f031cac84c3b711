package dev.distlock.spring.actuate;

import dev.distlock.core.FencingToken;
import dev.distlock.core.leader.Leader;
import dev.distlock.spring.leader.LeaderElection;
import dev.distlock.spring.leader.LeaderObservation;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The leadership part of the {@code distributedlocks} endpoint. For each name this instance campaigns for or
 * observes, it reads from the server who leads it.
 */
public final class LeadershipSection {

    private final Supplier<LeaderElection> election;
    private final Supplier<LeaderObservation> observation;

    /**
     * @param election this instance's campaigns, or a supplier of null without leader election
     * @param observation reads the leaders, or a supplier of null without leader election
     */
    public LeadershipSection(Supplier<LeaderElection> election, Supplier<LeaderObservation> observation) {
        this.election = election;
        this.observation = observation;
    }

    /** A section that shows no leaders. */
    static LeadershipSection none() {
        return new LeadershipSection(() -> null, () -> null);
    }

    /** The leader of each name, by name. */
    public Map<String, LeaderState> leaders() {
        LeaderElection campaigns = election.get();
        LeaderObservation leaders = observation.get();
        Map<String, LeaderState> result = new TreeMap<>();
        if (leaders == null) {
            return result;
        }
        TreeSet<String> names = new TreeSet<>(leaders.names());
        if (campaigns != null) {
            names.addAll(campaigns.names());
        }
        for (String name : names) {
            Optional<FencingToken> ours = campaigns == null ? Optional.empty() : campaigns.epoch(name);
            result.put(name, state(leaders, name, ours));
        }
        return result;
    }

    private static LeaderState state(LeaderObservation leaders, String name, Optional<FencingToken> ours) {
        Optional<Leader> leader;
        try {
            leader = leaders.leaderOf(name);
        } catch (RuntimeException e) { // unsupported by the backend, unreachable, or a bad name
            return LeaderState.failed(leaders.backend(), e);
        }
        return leader.map(found -> LeaderState.led(
                        leaders.backend(),
                        found,
                        ours.filter(found.epoch()::equals).isPresent()))
                .orElseGet(() -> LeaderState.vacant(leaders.backend()));
    }

    /**
     * Who leads one name on the backend. {@code led} is true when someone does, with its description
     * (application@host pid N thread T), the term's epoch (its fencing token), the value it publishes, and the lease
     * left (null for session leases). {@code thisInstance} is true when this instance leads, and {@code error} is set
     * when the backend could not tell.
     */
    public record LeaderState(
            String backend,
            boolean led,
            String holder,
            Long epoch,
            String value,
            String leaseLeft,
            boolean thisInstance,
            String error) {

        static LeaderState failed(String backend, RuntimeException e) {
            return new LeaderState(backend, false, null, null, null, null, false, e.getMessage());
        }

        static LeaderState vacant(String backend) {
            return new LeaderState(backend, false, null, null, null, null, false, null);
        }

        static LeaderState led(String backend, Leader found, boolean thisInstance) {
            return new LeaderState(
                    backend,
                    true,
                    found.holder(),
                    found.epoch().value(),
                    found.value().orElse(null),
                    found.leaseLeft().map(Duration::toString).orElse(null),
                    thisInstance,
                    null);
        }
    }
}
