package dev.distlock.bench.contention;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A redis-server's counters, on connections of their own: commands from {@code INFO commandstats}
 * (scripts' inner commands included, this class's own {@code INFO} and {@code PUBSUB} left out),
 * {@code PUBLISH}es times their subscribers ({@code PUBSUB NUMSUB} of the library's channels,
 * sampled every 20 ms since the last snapshot, since some libraries subscribe only while they
 * wait), and the process's CPU time from /proc.
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
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread sampler;
    private long subscriberSum;
    private long samples;

    /** @param channels the channel pattern the library publishes its releases on */
    RedisCounters(int port, long pid, String channels) {
        this.pid = pid;
        this.channels = channels;
        client = RedisClient.create(RedisURI.create("127.0.0.1", port));
        connection = client.connect();
        redis = connection.sync();
        samplerConnection = client.connect();
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
        long receivers;
        synchronized (this) {
            receivers = samples == 0 ? 0 : Math.round((double) subscriberSum / samples);
            subscriberSum = 0;
            samples = 0;
        }
        var cpu = ProcessCpu.micros(pid);
        return new Snapshot(
                requests,
                requests.getOrDefault("publish", 0L),
                receivers,
                cpu.isPresent() ? Map.of("redis-server", cpu.getAsDouble()) : null);
    }

    private void sample() {
        RedisCommands<String, String> commands = samplerConnection.sync();
        while (!stop.get()) {
            try {
                List<String> active = commands.pubsubChannels(channels);
                long subscribers = active.isEmpty()
                        ? 0
                        : commands.pubsubNumsub(active.toArray(String[]::new)).values().stream()
                                .mapToLong(Long::longValue)
                                .sum();
                synchronized (this) {
                    subscriberSum += subscribers;
                    samples++;
                }
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
        return "`PUBLISH` × subscribers of the library's channel (`PUBSUB NUMSUB`, sampled every 20 ms)";
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
        connection.close();
        client.shutdown();
    }
}
