package dev.distlock.bench.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CPU time of the server's main thread, from {@code INFO cpu}: reading requests, running the
 * commands and scripts, writing replies. What a library costs the server per operation hardly
 * moves with the load around it, unlike throughput on shared cores.
 */
final class ServerTime implements AutoCloseable {

    private static final Pattern MAIN_THREAD = Pattern.compile("used_cpu_(?:sys|user)_main_thread:([0-9.]+)");

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    ServerTime(String host, int port) {
        client = RedisClient.create(RedisURI.create(host, port));
        connection = client.connect();
        redis = connection.sync();
    }

    /** The main thread's CPU time so far, user and system, in microseconds. */
    long micros() {
        double seconds = 0;
        Matcher matcher = MAIN_THREAD.matcher(redis.info("cpu"));
        while (matcher.find()) {
            seconds += Double.parseDouble(matcher.group(1));
        }
        return Math.round(seconds * 1e6);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
