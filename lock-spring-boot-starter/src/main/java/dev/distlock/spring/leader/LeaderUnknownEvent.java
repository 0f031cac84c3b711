package dev.distlock.spring.leader;

import java.util.Objects;
import org.springframework.context.ApplicationEvent;

/**
 * Who leads an observed name is unknown, because the backend failed the read or did not answer in time. This is not
 * "no leader", since the last leader may still lead. It is published once per outage, and a {@link LeaderChangedEvent}
 * follows once the server answers again.
 */
public final class LeaderUnknownEvent extends ApplicationEvent {

    private final String name;
    private final RuntimeException cause;

    public LeaderUnknownEvent(Object source, String name, RuntimeException cause) {
        super(source);
        this.name = Objects.requireNonNull(name, "name");
        this.cause = Objects.requireNonNull(cause, "cause");
    }

    /** The name observed. */
    public String name() {
        return name;
    }

    /** Why the leader is unknown. */
    public RuntimeException cause() {
        return cause;
    }

    @Override
    public String toString() {
        return "LeaderUnknownEvent[" + name + ": " + cause.getMessage() + "]";
    }
}
