package dev.distlock.redis;

import java.time.Duration;

/**
 * How many replicas must acknowledge a grant ({@code WAIT}) before it counts, and for how long to
 * wait for them; none by default.
 */
record ReplicaAcknowledgements(int count, Duration timeout) {

    static final ReplicaAcknowledgements NONE = new ReplicaAcknowledgements(0, Duration.ZERO);
}
