package dev.distlock.bench.contention;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A redis-server's counters, on connections of their own: commands from {@code INFO commandstats}
 * (scripts' inner commands included, this class's own {@code INFO} and {@code PUBSUB} left out),
 * wake-ups (each message on the library's channels, seen by a pattern subscriber of this class's,
 * counted once per subscriber of the channel it went to: {@code PUBSUB NUMSUB}, sampled every 20
 * ms, since some libraries subscribe only while they wait, and a library may wake one client on a
 * channel of its own or all of them on a shared one), and the process's CPU time from /proc.
 */
final class RedisCounters implements ServerCounters {

    private static final Pattern CALLS = Pattern.compile("cmdstat_([^:]+):calls=(\\d+)");

    /** Commands a script cannot run, so each call was a request from a client; with script runs. */
    private static final java.util.Set<String> CLIENT_ONLY = java.util.Set.of(
            "subscribe",
            "unsubscribe",
            "psubscribe",
            "punsubscribe",
            "ssubscribe",
            "sunsubscribe",
            "ping",
            "hello",
            "client",
            "select",
            "auth",
            "quit",
            "reset",
            "multi",
            "exec",
            "discard",
            "watch",
            "unwatch",
            "readonly",
            "readwrite",
            "command",
            "wait",
            "script");

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final StatefulRedisConnection<String, String> samplerConnection;
    private final long pid;
    private final String channels;
    private final StatefulRedisPubSubConnection<String, String> observer;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread sampler;
    /** The subscribers of each active channel of the library at the last sample (this class's own not among them). */
    private volatile Map<String, Long> subscribers = Map.of();
    /** Messages times the subscribers of their channels, since the start. */
    private final AtomicLong deliveries = new AtomicLong();

    /** @param channels the channel pattern the library publishes its wake-ups on */
    RedisCounters(int port, long pid, String channels) {
        this.pid = pid;
        this.channels = channels;
        client = RedisClient.create(RedisURI.create("127.0.0.1", port));
        connection = client.connect();
        redis = connection.sync();
        samplerConnection = client.connect();
        observer = client.connectPubSub();
        observer.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String pattern, String channel, String message) {
                deliveries.addAndGet(subscribers.getOrDefault(channel, 0L));
            }
        });
        observer.sync().psubscribe(channels);
        sampler = new Thread(this::sample, "numsub-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    @Override
    public Snapshot snapshot() {
        Map<String, Long> requests = new LinkedHashMap<>();
        Matcher matcher = CALLS.matcher(redis.info("commandstats"));
        while (matcher.find()) {
            String command = matcher.group(1);
            if (!command.startsWith("info") && !command.startsWith("pubsub")) {
                requests.put(command, Long.parseLong(matcher.group(2)));
            }
        }
        var cpu = ProcessCpu.micros(pid);
        return new Snapshot(
                requests, deliveries.get(), 1, cpu.isPresent() ? Map.of("redis-server", cpu.getAsDouble()) : null);
    }

    private void sample() {
        RedisCommands<String, String> commands = samplerConnection.sync();
        while (!stop.get()) {
            try {
                List<String> active = commands.pubsubChannels(channels);
                subscribers = active.isEmpty() ? Map.of() : commands.pubsubNumsub(active.toArray(String[]::new));
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (!stop.get()) {
                    throw e;
                }
            }
        }
    }

    @Override
    public boolean isRequest(String kind) {
        String command = kind.replaceAll("\\|.*", "");
        return command.startsWith("eval") || command.startsWith("fcall") || CLIENT_ONLY.contains(command);
    }

    @Override
    public String requests() {
        return "script runs (`EVAL`, `EVALSHA`) and commands a script cannot run (pub/sub, `PING`, connection"
                + " commands) from `INFO commandstats`: the libraries measured send nothing else on their lock"
                + " paths. The commands their scripts run are listed beside them, not added";
    }

    @Override
    public String wakeUps() {
        return "messages on the library's channels, each times the subscribers of its channel (`PUBSUB NUMSUB`, sampled"
                + " every 20 ms; one for a channel of a single client's)";
    }

    @Override
    public String cpu() {
        return "redis-server process (/proc)";
    }

    @Override
    public void close() {
        stop.set(true);
        sampler.interrupt();
        try {
            sampler.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        samplerConnection.close();
        observer.close();
        connection.close();
        client.shutdown();
    }
}
