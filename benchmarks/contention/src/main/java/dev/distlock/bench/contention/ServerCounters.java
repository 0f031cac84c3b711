package dev.distlock.bench.contention;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a server has done so far, read before and after a measured window: requests by kind, the
 * wake-ups it sent, and its CPU time. Each backend counts what its server can tell; what it cannot
 * is reported as n/a rather than guessed.
 */
interface ServerCounters extends AutoCloseable {

    Snapshot snapshot() throws Exception;

    /** What a request is on this server (for the report). */
    String requests();

    /**
     * Whether the server's count of {@code kind} counts requests from clients; false for work the
     * server does within a request (Redis: the commands a script runs), which the report lists
     * beside the requests but does not add to them.
     */
    default boolean isRequest(String kind) {
        return true;
    }

    /** What a wake-up is on this server, or why there is no figure. */
    String wakeUps();

    /** Whose CPU time is counted, or why there is no figure. */
    String cpu();

    @Override
    default void close() {}

    /**
     * Counters at one moment. {@code notifications} are messages the server sent to wake someone
     * (negative: not known), each reaching {@code receivers} clients; {@code cpuMicros} is CPU time
     * by process or thread (null: not known).
     */
    record Snapshot(Map<String, Long> requests, long notifications, long receivers, Map<String, Double> cpuMicros) {

        /** What happened between {@code before} and this snapshot. */
        Usage since(Snapshot before) {
            Map<String, Long> delta = new LinkedHashMap<>();
            requests.forEach((kind, count) -> {
                long change = count - before.requests.getOrDefault(kind, 0L);
                if (change != 0) {
                    delta.put(kind, change);
                }
            });
            double wakeUps = notifications < 0 || before.notifications < 0
                    ? Double.NaN
                    : (double) (notifications - before.notifications) * receivers;
            double cpu = Double.NaN;
            if (cpuMicros != null && before.cpuMicros != null) {
                cpu = 0;
                for (Map.Entry<String, Double> entry : cpuMicros.entrySet()) {
                    Double earlier = before.cpuMicros.get(entry.getKey());
                    if (earlier != null) { // a process or thread seen at both ends
                        cpu += entry.getValue() - earlier;
                    }
                }
            }
            return new Usage(delta, wakeUps, cpu);
        }
    }

    /** Requests by kind, wake-ups and CPU microseconds over a window (NaN: not known). */
    record Usage(Map<String, Long> requests, double wakeUps, double cpuMicros) {

        static final Usage NONE = new Usage(Map.of(), 0, 0);

        /** The counts of the kinds that {@code counters} takes for requests from clients. */
        long requestsFromClients(ServerCounters counters) {
            return requests.entrySet().stream()
                    .filter(entry -> counters.isRequest(entry.getKey()))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
        }

        Usage plus(Usage other) {
            Map<String, Long> sum = new LinkedHashMap<>(requests);
            other.requests.forEach((kind, count) -> sum.merge(kind, count, Long::sum));
            return new Usage(sum, wakeUps + other.wakeUps, cpuMicros + other.cpuMicros);
        }
    }
}
