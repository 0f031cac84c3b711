package dev.distlock.bench.contention;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An etcd member's counters from its Prometheus {@code /metrics} on the client URL: gRPC messages
 * received by method ({@code grpc_server_msg_received_total}: one per unary call, one per message on
 * a stream such as a watch creation or a lease keep-alive), watch events sent ({@code
 * etcd_debugging_mvcc_events_total}), and the process's CPU time from /proc.
 */
final class EtcdCounters implements ServerCounters {

    private static final Pattern RECEIVED =
            Pattern.compile("(?m)^grpc_server_msg_received_total\\{([^}]*)\\}\\s+(\\S+)$");
    private static final Pattern METHOD = Pattern.compile("grpc_method=\"([^\"]+)\"");
    private static final Pattern EVENTS = Pattern.compile("(?m)^etcd_debugging_mvcc_events_total\\s+(\\S+)$");

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI metrics;
    private final long pid;

    EtcdCounters(String clientUrl, long pid) {
        this.metrics = URI.create(clientUrl + "/metrics");
        this.pid = pid;
    }

    @Override
    public Snapshot snapshot() throws IOException, InterruptedException {
        String text = http.send(
                        HttpRequest.newBuilder(metrics)
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Map<String, Long> requests = new LinkedHashMap<>();
        Matcher received = RECEIVED.matcher(text);
        while (received.find()) {
            Matcher method = METHOD.matcher(received.group(1));
            if (method.find()) {
                requests.merge(method.group(1), Math.round(Double.parseDouble(received.group(2))), Long::sum);
            }
        }
        Matcher events = EVENTS.matcher(text);
        long notifications = events.find() ? Math.round(Double.parseDouble(events.group(1))) : -1;
        var cpu = ProcessCpu.micros(pid);
        return new Snapshot(requests, notifications, 1, cpu.isPresent() ? Map.of("etcd", cpu.getAsDouble()) : null);
    }

    @Override
    public String requests() {
        return "gRPC messages received (`grpc_server_msg_received_total`: unary calls, and stream messages such as"
                + " watch creations and lease keep-alives)";
    }

    @Override
    public String wakeUps() {
        return "watch events sent (`etcd_debugging_mvcc_events_total`)";
    }

    @Override
    public String cpu() {
        return "etcd process (/proc)";
    }
}
