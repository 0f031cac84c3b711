package dev.distlock.contract.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy on loopback in front of a server under test that delays what passes each way, as a slow network or a
 * busy server looks to a client. A delay applies to the bytes read after it is set; bytes keep their order.
 */
public final class FaultProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile long requestDelayNanos;
    private volatile long replyDelayNanos;
    private volatile long requestsHeldUntilNanos = System.nanoTime();
    private volatile boolean closed;

    private FaultProxy(String targetHost, int targetPort) {
        try {
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot listen on a loopback port for a proxy to " + targetPort, e);
        }
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        daemon("fault-proxy-accept-" + port(), this::accept);
    }

    /** A proxy that forwards to {@code host:port}, listening on a free loopback port. */
    public static FaultProxy to(String host, int port) {
        return new FaultProxy(host, port);
    }

    /** The loopback address clients connect to instead of the server. */
    public String host() {
        return listener.getInetAddress().getHostAddress();
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** From now on, each chunk the client sends reaches the server {@code delay} after it was read. */
    public void delayRequests(Duration delay) {
        requestDelayNanos = delay.toNanos();
    }

    /**
     * What the client sends from now until {@code duration} has passed reaches the server only then, at once: a
     * request (of however many round trips) that leaves the client {@code duration} late.
     */
    public void holdRequests(Duration duration) {
        requestsHeldUntilNanos = System.nanoTime() + duration.toNanos();
    }

    /** From now on, each chunk the server answers reaches the client {@code delay} after it was read. */
    public void delayReplies(Duration delay) {
        replyDelayNanos = delay.toNanos();
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(targetHost, targetPort);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                pipe(client, server, true);
                pipe(server, client, false);
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("Fault proxy to " + targetHost + ":" + targetPort + ": " + e);
                }
            }
        }
    }

    /** Copies {@code from} to {@code to} through a queue, so that a delay holds back chunks without holding reads. */
    private void pipe(Socket from, Socket to, boolean requests) {
        BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        String name = "fault-proxy-" + port() + (requests ? "-requests" : "-replies");
        daemon(name + "-read", () -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    queue.add(new Chunk(Arrays.copyOf(buffer, n), dueNanos(requests)));
                }
            } catch (IOException e) {
                // the connection ended
            }
            queue.add(Chunk.END);
        });
        daemon(name + "-write", () -> {
            try (OutputStream out = to.getOutputStream()) {
                for (Chunk chunk = queue.take(); chunk != Chunk.END; chunk = queue.take()) {
                    long wait = chunk.dueNanos - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    out.write(chunk.bytes);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // the connection ended
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    private long dueNanos(boolean request) {
        long now = System.nanoTime();
        if (!request) {
            return now + replyDelayNanos;
        }
        long held = requestsHeldUntilNanos;
        return Math.max(now + requestDelayNanos, held - now > 0 ? held : now);
    }

    private record Chunk(byte[] bytes, long dueNanos) {
        static final Chunk END = new Chunk(new byte[0], 0);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }
}
