package dev.distlock.spring.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Leader election settings, under {@code distributed-lock.leadership}. */
@ConfigurationProperties("distributed-lock.leadership")
public class LeadershipProperties {

    /** Whether the leader election beans are created. */
    private boolean enabled = true;

    /**
     * Names this instance campaigns for from start-up. Names used by @LeaderOnly are campaigned
     * for as well, from the first call of such a method.
     */
    private List<String> names = new ArrayList<>();

    /**
     * How often a leader checks its hold besides being told of a lost lease. It bounds how late the revoked event
     * comes when the hold ends without a loss notice.
     */
    private Duration checkInterval = Duration.ofMillis(100);

    /** How long an instance that resigned stays out before campaigning again, so another takes over. */
    private Duration rejoinDelay = Duration.ofSeconds(1);

    /** The pause after the backend failed a campaign attempt, before the next one. */
    private Duration retryDelay = Duration.ofSeconds(1);

    /**
     * What this instance publishes with each term it leads, its URL say. It is recorded on the server with the term,
     * so every instance reads it as the leader's value. Printable ASCII, at most 120 characters. Unset for none.
     */
    private String value;

    /**
     * Names whose leader this instance follows, candidate or not. Each change is published as a LeaderChangedEvent
     * (or LeaderUnknownEvent while the backend cannot tell).
     */
    private List<String> observedNames = new ArrayList<>();

    /** How often the leader of each observed name is read from the server. */
    private Duration observeInterval = Duration.ofSeconds(1);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public List<String> getNames() {
        return names;
    }

    public void setNames(List<String> names) {
        this.names = names;
    }

    public Duration getCheckInterval() {
        return checkInterval;
    }

    public void setCheckInterval(Duration checkInterval) {
        this.checkInterval = checkInterval;
    }

    public Duration getRejoinDelay() {
        return rejoinDelay;
    }

    public void setRejoinDelay(Duration rejoinDelay) {
        this.rejoinDelay = rejoinDelay;
    }

    public Duration getRetryDelay() {
        return retryDelay;
    }

    public void setRetryDelay(Duration retryDelay) {
        this.retryDelay = retryDelay;
    }

    public String getValue() {
        return value;
    }

    public void setValue(String value) {
        this.value = value;
    }

    public List<String> getObservedNames() {
        return observedNames;
    }

    public void setObservedNames(List<String> observedNames) {
        this.observedNames = observedNames;
    }

    public Duration getObserveInterval() {
        return observeInterval;
    }

    public void setObserveInterval(Duration observeInterval) {
        this.observeInterval = observeInterval;
    }
}
