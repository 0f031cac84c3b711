package dev.distlock.spring.leader;

import dev.distlock.core.leader.Leader;
import java.util.Objects;
import java.util.Optional;
import org.springframework.context.ApplicationEvent;

/**
 * The leader of an observed name ({@code distributed-lock.leadership.observed-names}, {@link
 * LeaderObservation#observe}) changed, as read from the server. There is a new term (leader, epoch and value), or no
 * leader. It is published first with the leader found at start-up, and again after a {@link LeaderUnknownEvent} once
 * the server answers. It is published on a shared observation thread, so a listener that works for long should hand
 * off.
 */
public final class LeaderChangedEvent extends ApplicationEvent {

    private final String name;
    private final Optional<Leader> leader;

    public LeaderChangedEvent(Object source, String name, Optional<Leader> leader) {
        super(source);
        this.name = Objects.requireNonNull(name, "name");
        this.leader = Objects.requireNonNull(leader, "leader");
    }

    /** The name led. */
    public String name() {
        return name;
    }

    /** Who leads now (holder, epoch, value), empty when nobody does. */
    public Optional<Leader> leader() {
        return leader;
    }

    @Override
    public String toString() {
        return "LeaderChangedEvent[" + name + ", "
                + leader.map(Leader::toString).orElse("no leader") + "]";
    }
}
