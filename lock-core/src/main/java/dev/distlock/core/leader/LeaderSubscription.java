package dev.distlock.core.leader;

/** One observer's subscription to the leader of a name ({@link Leadership#observe}). */
public interface LeaderSubscription extends AutoCloseable {

    /** The name observed. */
    String name();

    /**
     * Stops observing. No read starts after this returns and the observer is told nothing more (a read already
     * under way finishes on its own and is ignored). When called from another thread while the observer is being
     * told something, waits for that call to return. Closing twice does nothing.
     */
    @Override
    void close();
}
