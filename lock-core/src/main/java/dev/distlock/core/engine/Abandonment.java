package dev.distlock.core.engine;

/**
 * Stops a cancelled asynchronous attempt while it still waits at the key's local gate, before it asks the server.
 * Past the gate it runs to its end, and {@link AsyncAcquisitions} releases a late grant
 * ({@code docs/internals/engine.md}).
 */
final class Abandonment {

    private Thread atGate;
    private boolean abandoned;

    /** The attempt's caller cancelled. Ends a wait at the gate now, and any attempt to start one. */
    synchronized void abandon() {
        abandoned = true;
        if (atGate != null) {
            atGate.interrupt();
        }
    }

    /** The calling thread starts waiting at the gate. False when the attempt was abandoned already. */
    synchronized boolean enterGate() {
        if (abandoned) {
            return false;
        }
        atGate = Thread.currentThread();
        return true;
    }

    /**
     * The calling thread no longer waits at the gate, because it passed or its wait ended.
     *
     * @return true when the attempt was abandoned meanwhile. The interrupt that told it so is cleared.
     */
    synchronized boolean leaveGate() {
        atGate = null;
        if (abandoned) {
            Thread.interrupted();
        }
        return abandoned;
    }
}
