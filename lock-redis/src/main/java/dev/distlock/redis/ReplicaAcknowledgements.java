package dev.distlock.redis;

import java.time.Duration;

/**
 * How many replicas must acknowledge a grant ({@code WAIT}) before it counts, and how long to wait for them. None by
 * default.
 */
record ReplicaAcknowledgements(int count, Duration timeout) {

    static final ReplicaAcknowledgements NONE = new ReplicaAcknowledgements(0, Duration.ZERO);
}
