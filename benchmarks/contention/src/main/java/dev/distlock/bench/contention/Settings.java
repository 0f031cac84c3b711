package dev.distlock.bench.contention;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * How long and how wide a run is, from system properties, so that a smoke run and a full run are
 * the same program: {@code contention.rounds} (default 5), {@code contention.sliceMillis} (3000, the
 * measured part of each slice), {@code contention.warmupMillis} (1000, before each slice),
 * {@code contention.waiters} (50 clients on one key), {@code contention.postgresWaiters} (at most
 * {@code waiters}; by default as many as the server's free connections allow) and {@code
 * contention.backends} (redis,zookeeper,etcd,postgresql).
 */
record Settings(int rounds, Duration warmup, Duration slice, int waiters, int postgresWaiters, List<String> backends) {

    static final List<String> BACKENDS = List.of("redis", "zookeeper", "etcd", "postgresql");

    static Settings fromSystemProperties() {
        List<String> backends = Arrays.stream(System.getProperty("contention.backends", String.join(",", BACKENDS))
                        .split(","))
                .map(String::trim)
                .filter(name -> !name.isEmpty())
                .toList();
        backends.forEach(name -> {
            if (!BACKENDS.contains(name)) {
                throw new IllegalArgumentException(
                        "contention.backends names " + name + "; choose from " + String.join(",", BACKENDS));
            }
        });
        int waiters = Integer.getInteger("contention.waiters", 50);
        return new Settings(
                positive("contention.rounds", Integer.getInteger("contention.rounds", 5)),
                Duration.ofMillis(Long.getLong("contention.warmupMillis", 1000)),
                Duration.ofMillis(positive("contention.sliceMillis", Long.getLong("contention.sliceMillis", 3000))),
                positive("contention.waiters", waiters),
                Integer.getInteger("contention.postgresWaiters", waiters),
                backends);
    }

    private static int positive(String name, int value) {
        return (int) positive(name, (long) value);
    }

    private static long positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
        return value;
    }

    /** One line for the report. */
    String describe() {
        return String.format(
                java.util.Locale.ROOT,
                "%d rounds; each slice %d ms of warm-up (not counted) then %d ms measured",
                rounds,
                warmup.toMillis(),
                slice.toMillis());
    }
}
