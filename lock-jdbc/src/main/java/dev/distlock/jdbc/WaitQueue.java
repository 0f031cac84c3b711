package dev.distlock.jdbc;

/**
 * A waiting attempt's place in its key's queue on PostgreSQL, the registry's own wake-up channel.
 * A refused take puts it at the end of the queue, and a grant takes it off unless {@code stay}.
 *
 * @param channel the registry's wake-up channel, null when the attempt takes no place
 * @param stay whether a grant leaves the registry in the queue, for its other waiters of the key
 * @param placeMicros how long a place lasts after the last attempt of any waiter in the queue
 */
record WaitQueue(String channel, boolean stay, long placeMicros) {

    /** No place in the queue. A refused take marks the row as waited for, so that its release notifies everyone. */
    static final WaitQueue NONE = new WaitQueue(null, false, 0);

    /** The channel a grant takes off the queue, or null. */
    String leaving() {
        return stay ? null : channel;
    }
}
