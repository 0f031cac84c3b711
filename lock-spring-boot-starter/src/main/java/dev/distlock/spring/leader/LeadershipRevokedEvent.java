package dev.distlock.spring.leader;

import dev.distlock.core.FencingToken;

/**
 * This instance no longer leads {@link #name()}. The term {@link #epoch()} was resigned or stopped, or its lease was
 * lost. On resign and shutdown it is published before the name is released, so before another instance is granted.
 */
public final class LeadershipRevokedEvent extends LeadershipEvent {

    public LeadershipRevokedEvent(Object source, String name, FencingToken epoch) {
        super(source, name, epoch);
    }
}
