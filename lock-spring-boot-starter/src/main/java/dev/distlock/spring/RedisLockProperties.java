package dev.distlock.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Redis backend settings; the connection itself comes from {@code spring.data.redis.*}. */
public class RedisLockProperties {

    /** single: one Redis (or a replicated set) through the application's RedisConnectionFactory; redlock: a majority of independent nodes. */
    private RedisMode mode = RedisMode.SINGLE;

    /** redis://host:port URIs of independent Redis nodes for mode=redlock; at least 3. */
    private List<String> redlockNodes = new ArrayList<>();

    /**
     * Tune the Lettuce client that Spring Boot builds from spring.data.redis.* for outages:
     * commands fail at once while disconnected, reconnects are retried at least every 500ms.
     */
    private boolean tuneClient = true;

    /**
     * mode=single: how many replicas must acknowledge a grant (Redis WAIT) before it counts, so that
     * a failover to a replica does not forget it. 0 (the default): none, no wait.
     */
    private int replicaAcknowledgements;

    /** The longest a grant waits for its replica acknowledgements; one not acknowledged in time is released. */
    private Duration replicaAcknowledgementTimeout = Duration.ofSeconds(1);

    public int getReplicaAcknowledgements() {
        return replicaAcknowledgements;
    }

    public void setReplicaAcknowledgements(int replicaAcknowledgements) {
        this.replicaAcknowledgements = replicaAcknowledgements;
    }

    public Duration getReplicaAcknowledgementTimeout() {
        return replicaAcknowledgementTimeout;
    }

    public void setReplicaAcknowledgementTimeout(Duration replicaAcknowledgementTimeout) {
        this.replicaAcknowledgementTimeout = replicaAcknowledgementTimeout;
    }

    public boolean isTuneClient() {
        return tuneClient;
    }

    public void setTuneClient(boolean tuneClient) {
        this.tuneClient = tuneClient;
    }

    public RedisMode getMode() {
        return mode;
    }

    public void setMode(RedisMode mode) {
        this.mode = mode;
    }

    public List<String> getRedlockNodes() {
        return redlockNodes;
    }

    public void setRedlockNodes(List<String> redlockNodes) {
        this.redlockNodes = redlockNodes;
    }

    /** How the Redis backend reaches Redis. */
    public enum RedisMode {
        /** The application's RedisConnectionFactory ({@code spring.data.redis.*}). */
        SINGLE,
        /** Redlock over {@code distributed-lock.redis.redlock-nodes}. */
        REDLOCK
    }
}
