package dev.distlock.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Redis backend settings. The connection itself comes from {@code spring.data.redis.*}. */
public class RedisLockProperties {

    /**
     * SINGLE uses one Redis (or a replicated set) through the application's RedisConnectionFactory. REDLOCK uses a
     * majority of independent nodes.
     */
    private RedisMode mode = RedisMode.SINGLE;

    /** URIs ({@code redis://host:port}) of at least 3 independent Redis nodes, for mode=redlock. */
    private List<String> redlockNodes = new ArrayList<>();

    /**
     * Tune the Lettuce client that Spring Boot builds from {@code spring.data.redis.*} for outages. Commands fail at
     * once while disconnected, and reconnects are retried at least every 500ms.
     */
    private boolean tuneClient = true;

    /**
     * With mode=single, how many replicas must acknowledge a grant (Redis WAIT) before it counts, so that a failover
     * to a replica does not forget it. The default 0 waits for none.
     */
    private int replicaAcknowledgements;

    /** The longest a grant waits for its replica acknowledgements. A grant not acknowledged in time is released. */
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
