package dev.distlock.core.leader;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockRegistry;
import java.util.Objects;
import java.util.Optional;

/**
 * One candidate's campaign for the leadership of a name. It leads while it holds the lock on key
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
 * {@link #observe}, which give the leader's holder description, its epoch, and the value it publishes with its
 * term ({@link CampaignOptions#withValue}).
 */
public final class Leadership implements AutoCloseable {

    private final String name;
    private final LockRegistry registry;
    private final Campaign campaign;

    private Leadership(LockRegistry registry, String name, LeadershipListener listener, CampaignOptions options) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.name = name;
        this.campaign = new Campaign(
                registry,
                name,
                Objects.requireNonNull(listener, "listener"),
                Objects.requireNonNull(options, "options"));
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

    /** Starts campaigning for {@code name} on {@code registry}. See {@link CampaignOptions}. */
    public static Leadership campaign(
            LockRegistry registry, String name, LeadershipListener listener, CampaignOptions options) {
        Leadership leadership = new Leadership(registry, name, listener, options);
        leadership.campaign.start();
        return leadership;
    }

    /**
     * Who leads {@code name} on {@code registry}'s server right now, whichever instance that is (one call to the
     * server). Empty when nobody does. The epoch is the one the leader's own {@link #epoch()} reports.
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
     * {@link ObserveOptions#pollInterval()}, so a change is told at most that plus one read after it happened. When
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

    /** The lock key of the leadership of {@code name}. Every candidate and observer derives it here. */
    static String keyOf(String name) {
        return name;
    }

    /** The name campaigned for (the lock key). */
    public String name() {
        return name;
    }

    /**
     * True while this candidate leads and its lease is not known to be lost. False from the moment
     * {@link #resign()} or {@link #close()} is called.
     */
    public boolean isLeader() {
        return campaign.currentTerm() != null;
    }

    /** The fencing token of the current term while this candidate leads. Empty otherwise. */
    public Optional<FencingToken> epoch() {
        Campaign.Term current = campaign.currentTerm();
        return current == null ? Optional.empty() : Optional.of(current.handle().token());
    }

    /**
     * The value the current term publishes while this candidate leads (what {@link #leaderOf} shows every
     * instance). Empty when it does not lead or publishes none.
     */
    public Optional<String> value() {
        Campaign.Term current = campaign.currentTerm();
        return current == null ? Optional.empty() : current.value();
    }

    /**
     * Publishes {@code value} (null: none) with this candidate's next terms. The current term keeps the value it was
     * granted with. The server records the value with the term's hold when it is granted, and a hold's record does
     * not change while it lasts ({@link FencedLock#withNote}). To publish the new value at once, {@link #resign()}
     * after this. The next term, this candidate's or another's, shows its own candidate's value.
     *
     * @throws IllegalArgumentException if the value cannot be recorded (not printable ASCII, too long)
     */
    public void changeValue(String value) {
        campaign.changeValue(Optional.ofNullable(value));
    }

    /**
     * Ends the current term, if any. The listener is revoked and the name released on the campaign
     * thread right away, and this candidate campaigns again after {@link CampaignOptions#rejoinDelay()}.
     * Returns without waiting for the hand-over.
     */
    public void resign() {
        campaign.resign();
    }

    /**
     * Stops campaigning. A leader is revoked and releases the name. Waits for that up to a few
     * seconds (not at all when called from a listener).
     */
    @Override
    public void close() {
        campaign.close();
    }

    @Override
    public String toString() {
        return "Leadership[" + name + " on " + registry.backend() + ", leader=" + isLeader() + "]";
    }
}
