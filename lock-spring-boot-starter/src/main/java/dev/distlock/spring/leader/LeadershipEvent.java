package dev.distlock.spring.leader;

import dev.distlock.core.FencingToken;
import org.springframework.context.ApplicationEvent;

/**
 * A change of this instance's leadership of {@link #name()}, published on the campaign's thread. A listener that works
 * for long should hand off to its own thread.
 */
public abstract class LeadershipEvent extends ApplicationEvent {

    private final String name;
    private final FencingToken epoch;

    LeadershipEvent(Object source, String name, FencingToken epoch) {
        super(source);
        this.name = name;
        this.epoch = epoch;
    }

    /** The name led. */
    public String name() {
        return name;
    }

    /** The term's fencing token. Pass it with writes so a resource can refuse a deposed leader. */
    public FencingToken epoch() {
        return epoch;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + ", epoch " + epoch + "]";
    }
}
