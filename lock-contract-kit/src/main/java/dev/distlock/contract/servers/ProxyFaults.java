package dev.distlock.contract.servers;

import java.time.Duration;

/** The faults a {@link FaultProxy} applies now, read by its connections for each chunk they relay. */
final class ProxyFaults {

    volatile long requestDelayNanos;
    volatile long replyDelayNanos;
    volatile long requestsHeldUntilNanos = System.nanoTime();
    volatile boolean stalled;
    volatile boolean silent;
    private volatile byte[] delayedMarker;
    private volatile long markerDelayNanos;
    private volatile byte[] dropReplyMarker;

    void delayMessageContaining(byte[] marker, Duration delay) {
        markerDelayNanos = delay.toNanos();
        delayedMarker = marker;
    }

    void dropReplyToMessageContaining(byte[] marker) {
        dropReplyMarker = marker;
    }

    /** When a request chunk read now is due at the server. A marked chunk takes its one-off delay. */
    long requestDue(byte[] chunk) {
        long now = System.nanoTime();
        long held = requestsHeldUntilNanos;
        long due = Math.max(now + requestDelayNanos, held - now > 0 ? held : now);
        byte[] marker = delayedMarker;
        if (marker != null && contains(chunk, marker)) {
            delayedMarker = null;
            due = Math.max(due, now + markerDelayNanos);
        }
        return due;
    }

    /** When a reply chunk read now is due at the client. */
    long replyDue() {
        return System.nanoTime() + replyDelayNanos;
    }

    /** True, once, for the request chunk that carries the marker whose reply is to be dropped. */
    boolean takeDropReply(byte[] chunk) {
        byte[] marker = dropReplyMarker;
        if (marker != null && contains(chunk, marker)) {
            dropReplyMarker = null;
            return true;
        }
        return false;
    }

    private static boolean contains(byte[] chunk, byte[] marker) {
        outer:
        for (int i = 0; i + marker.length <= chunk.length; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (chunk[i + j] != marker[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
