package dev.distlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Loads the lock scripts onto the server over the endpoint's Lettuce connection (to every node of
 * a Cluster) at the first connection and after every reconnect or topology change, so that no
 * lock operation pays a NOSCRIPT round trip.
 */
final class ScriptLoading {

    private final LettuceConnection connection;

    ScriptLoading(LettuceConnection connection) {
        this.connection = connection;
    }

    /** Sends SCRIPT LOAD for every script without waiting, and returns one answer per script. */
    List<CompletableFuture<?>> loadAll() {
        List<CompletableFuture<?>> loads = new ArrayList<>();
        for (LuaScript<?> script : LockScripts.ALL) {
            loads.add(connection.run(c -> c.scriptLoad(script.body())));
        }
        return loads;
    }

    /** After a reconnect or failover the server may have lost its script cache. */
    void reload() {
        try {
            loadAll();
        } catch (RuntimeException e) {
            // the connection went away again, and the next activation loads them
        }
    }
}
