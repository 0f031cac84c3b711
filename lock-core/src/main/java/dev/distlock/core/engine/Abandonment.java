package dev.distlock.core.engine;

/**
 * How far a cancelled asynchronous attempt can be stopped safely. While it waits at the key's local
 * gate it has asked the server nothing, so cancelling ends that wait at once (by interrupting it) and
 * the server is never asked. Once the attempt has passed the gate it runs to its end: interrupting a
 * server call could lose a grant the server made, so a grant that arrives after the cancellation is
 * released by {@link AsyncAcquisitions} instead.
 */
final class Abandonment {

    private Thread atGate;
    private boolean abandoned;

    /** The attempt's caller cancelled: ends a wait at the gate now, and any attempt to start one. */
    synchronized void abandon() {
        abandoned = true;
        if (atGate != null) {
            atGate.interrupt();
        }
    }

    /** The calling thread starts waiting at the gate; false when the attempt was abandoned already. */
    synchronized boolean enterGate() {
        if (abandoned) {
            return false;
        }
        atGate = Thread.currentThread();
        return true;
    }

    /**
     * The calling thread no longer waits at the gate (it passed, or its wait ended).
     *
     * @return true when the attempt was abandoned meanwhile; the interrupt that told it so is cleared
     */
    synchronized boolean leaveGate() {
        atGate = null;
        if (abandoned) {
            Thread.interrupted();
        }
        return abandoned;
    }
}
