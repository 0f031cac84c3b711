package dev.distlock.spring.leader;

import dev.distlock.core.FencingToken;
import org.springframework.context.ApplicationEvent;

/**
 * This instance no longer leads {@link #name()}: the term {@link #epoch()} was resigned, stopped or
 * its lease was lost. Published on the campaign's thread; on resign and shutdown before the name is
 * released, so before another instance is granted.
 */
public final class LeadershipRevokedEvent extends ApplicationEvent {

    private final String name;
    private final FencingToken epoch;

    public LeadershipRevokedEvent(Object source, String name, FencingToken epoch) {
        super(source);
        this.name = name;
        this.epoch = epoch;
    }

    /** The name no longer led. */
    public String name() {
        return name;
    }

    /** The fencing token of the term that ended. */
    public FencingToken epoch() {
        return epoch;
    }

    @Override
    public String toString() {
        return "LeadershipRevokedEvent[" + name + ", epoch " + epoch + "]";
    }
}
