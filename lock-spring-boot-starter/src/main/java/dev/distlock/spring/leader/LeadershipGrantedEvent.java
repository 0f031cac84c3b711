package dev.distlock.spring.leader;

import dev.distlock.core.FencingToken;
import java.util.Objects;
import java.util.Optional;

/** This instance became leader of {@link #name()} for the term {@link #epoch()}. */
public final class LeadershipGrantedEvent extends LeadershipEvent {

    private final Optional<String> value;

    public LeadershipGrantedEvent(Object source, String name, FencingToken epoch) {
        this(source, name, epoch, Optional.empty());
    }

    public LeadershipGrantedEvent(Object source, String name, FencingToken epoch, Optional<String> value) {
        super(source, name, epoch);
        this.value = Objects.requireNonNull(value, "value");
    }

    /** The value this term publishes ({@code distributed-lock.leadership.value}), or empty for none. */
    public Optional<String> value() {
        return value;
    }
}
