package dev.distlock.core.leader;

import java.util.Optional;

/**
 * Told who leads a name, by {@link Leadership#observe}. First the leader found when the subscription starts, then
 * each change. Calls for one subscription come one at a time, in order, from a shared observation thread. They
 * should return promptly (a slow one delays the next reads of its own subscription, no one else's).
 *
 * <p>Epochs told to one observer never go backwards. A read that shows an older term than one already told (a
 * lagging server, say) is ignored. A term is told once. It is told again only after {@link #leaderUnknown} or
 * after "no leader" was told in between and a later read still shows it.
 */
public interface LeaderObserver {

    /**
     * {@code name} is now led by {@code leader}, or by nobody when it is empty. Called when the leader, its epoch (a
     * new term) or the presence of a leader changed, and after an outage once the server answers again.
     */
    void leaderChanged(String name, Optional<Leader> leader);

    /**
     * Who leads {@code name} is unknown, because the backend failed the read or gave no answer in time. This is not "no
     * leader". The last leader told may still lead. Told once per outage; {@link #leaderChanged} follows as soon as
     * a read succeeds again.
     */
    void leaderUnknown(String name, RuntimeException cause);
}
