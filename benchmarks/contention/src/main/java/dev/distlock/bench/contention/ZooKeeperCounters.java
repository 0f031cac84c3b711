package dev.distlock.bench.contention;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The in-process ZooKeeper server's counters: packets received and sent from the four-letter word
 * {@code mntr} (allowed by {@code zookeeper.4lw.commands.whitelist}); every request gets one
 * response packet, so packets sent beyond those received are watch notifications. CPU: the server's
 * threads in this JVM (connection, request, sync and session threads), by thread CPU time.
 */
final class ZooKeeperCounters implements ServerCounters {

    private static final Pattern SERVER_THREADS = Pattern.compile(
            "NIOServerCxnFactory\\..*|NIOWorkerThread-.*|ProcessThread\\(.*|SyncThread:.*|SessionTracker"
                    + "|RequestThrottler|ConnnectionExpirer|CommitProc.*");

    private final int port;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    ZooKeeperCounters(int port) {
        this.port = port;
    }

    @Override
    public Snapshot snapshot() throws IOException {
        String mntr = fourLetterWord("mntr");
        long received = value(mntr, "zk_packets_received");
        long sent = value(mntr, "zk_packets_sent");
        Map<String, Double> cpu = new HashMap<>();
        if (threads.isThreadCpuTimeSupported()) {
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                if (SERVER_THREADS.matcher(thread.getName()).matches()) {
                    long nanos = threads.getThreadCpuTime(thread.getId());
                    if (nanos >= 0) {
                        cpu.put(Long.toString(thread.getId()), nanos / 1e3);
                    }
                }
            }
        }
        return new Snapshot(Map.of("packets received", received), sent - received, 1, cpu.isEmpty() ? null : cpu);
    }

    private String fourLetterWord(String word) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    private static long value(String mntr, String name) {
        Matcher matcher = Pattern.compile("(?m)^" + name + "\\s+(\\d+)").matcher(mntr);
        if (!matcher.find()) {
            throw new IllegalStateException("ZooKeeper's mntr gave no " + name
                    + " (is zookeeper.4lw.commands.whitelist set before the server starts?): " + mntr);
        }
        return Long.parseLong(matcher.group(1));
    }

    @Override
    public String requests() {
        return "packets received (`mntr`)";
    }

    @Override
    public String wakeUps() {
        return "watch notifications: packets sent − packets received (`mntr`)";
    }

    @Override
    public String cpu() {
        return "the in-process server's threads (thread CPU time)";
    }
}
