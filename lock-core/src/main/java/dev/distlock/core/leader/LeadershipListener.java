package dev.distlock.core.leader;

import dev.distlock.core.FencingToken;
import java.util.Optional;

/**
 * Told when one candidate's leadership begins and ends. Calls come from the campaign's own thread,
 * one at a time and in order. Every {@code granted} is followed by exactly one {@code revoked} for
 * the same epoch before the next {@code granted}. Callbacks should return promptly. The campaign
 * does not watch its lease while one runs ({@link Leadership#isLeader()} stays exact meanwhile).
 */
public interface LeadershipListener {

    /** This candidate leads from now on, for the term whose fencing token is {@code epoch}. */
    void granted(FencingToken epoch);

    /**
     * As {@link #granted(FencingToken)}, with the value this term publishes ({@link CampaignOptions#value()}).
     * The campaign calls this one. By default it calls {@link #granted(FencingToken)}.
     */
    default void granted(FencingToken epoch, Optional<String> value) {
        granted(epoch);
    }

    /**
     * The term of {@code epoch} ended: resigned, closed, or its lease was lost. {@link
     * Leadership#isLeader()} already answers false. On resign and close this is called before the
     * name is released, so no other candidate is granted before it returns.
     */
    void revoked(FencingToken epoch);
}
