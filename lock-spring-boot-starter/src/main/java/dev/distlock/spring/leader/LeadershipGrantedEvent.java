package dev.distlock.spring.leader;

import dev.distlock.core.FencingToken;

/** This instance became leader of {@link #name()} for the term {@link #epoch()}. */
public final class LeadershipGrantedEvent extends LeadershipEvent {

    public LeadershipGrantedEvent(Object source, String name, FencingToken epoch) {
        super(source, name, epoch);
    }
}
