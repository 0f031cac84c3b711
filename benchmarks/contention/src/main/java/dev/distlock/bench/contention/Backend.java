package dev.distlock.bench.contention;

import java.util.List;

/** One server with the clients measured on it; opened once per run, closed at its end. */
interface Backend extends AutoCloseable {

    /** The server and the peer library, as the report names them. */
    String describe();

    ReadWriteMix.Result readWrite(Settings settings) throws Exception;

    List<ManyWaiters.Outcome> manyWaiters(Settings settings) throws Exception;

    /** A distlock registry with a client of its own (standing for a JVM), closed by {@code closer}. */
    dev.distlock.core.LockRegistry newRegistry(Closer closer) throws Exception;

    /** Leader hand-over on resign between two registries of distlock (see {@link LeaderHandOver}). */
    LeaderHandOver.Result leaderHandOver() throws Exception;

    @Override
    void close();
}
