package dev.distlock.contract.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One client connection through a {@link FaultProxy} and its own connection to the server, relayed each way through
 * a queue so that a delay holds back chunks without holding back reads.
 */
final class ProxiedConnection {

    private final Socket client;
    private final Socket server;
    private final ProxyFaults faults;
    private volatile boolean dropNextReply;

    ProxiedConnection(Socket client, Socket server, ProxyFaults faults) {
        this.client = client;
        this.server = server;
        this.faults = faults;
    }

    /** Starts relaying in both directions on daemon threads named after {@code name}. */
    void start(String name) {
        pipe(client, server, true, name + "-requests");
        pipe(server, client, false, name + "-replies");
    }

    /** Closes both sockets. The client sees its connection reset. */
    void close() {
        closeQuietly(client);
        closeQuietly(server);
    }

    private void pipe(Socket from, Socket to, boolean requests, String name) {
        BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        daemon(name + "-read", () -> {
            read(from, requests, queue);
            queue.add(Chunk.END);
        });
        daemon(name + "-write", () -> {
            try {
                write(from, to, queue);
            } finally {
                close();
            }
        });
    }

    private void read(Socket from, boolean requests, BlockingQueue<Chunk> queue) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream()) {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                byte[] bytes = Arrays.copyOf(buffer, n);
                if (faults.silent) {
                    continue;
                }
                if (requests) {
                    dropNextReply |= faults.takeDropReply(bytes);
                    queue.add(new Chunk(bytes, faults.requestDue(bytes)));
                } else if (dropNextReply) {
                    close();
                    return;
                } else {
                    queue.add(new Chunk(bytes, faults.replyDue()));
                }
            }
        } catch (IOException e) {
            // the connection ended
        }
    }

    private void write(Socket from, Socket to, BlockingQueue<Chunk> queue) {
        try (OutputStream out = to.getOutputStream()) {
            for (Chunk chunk = queue.take(); chunk != Chunk.END; chunk = queue.take()) {
                long wait = chunk.dueNanos - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                while (faults.stalled && !from.isClosed()) {
                    Thread.sleep(20);
                }
                out.write(chunk.bytes);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the connection ended
        }
    }

    private record Chunk(byte[] bytes, long dueNanos) {
        static final Chunk END = new Chunk(new byte[0], 0);
    }

    static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }

    static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }
}
