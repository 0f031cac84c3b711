package dev.distlock.contract.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on loopback in front of a server under test that plays the network's and the server's faults as a
 * client sees them. Delays, a stall or silence (connections stay open, nothing comes back), a refusal (a server that
 * is down), and one-off faults on the message that carries a marker. Closing it cuts every connection.
 */
public final class FaultProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final ProxyFaults faults = new ProxyFaults();
    private final Set<ProxiedConnection> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean refusing;
    private volatile boolean closed;

    private FaultProxy(String targetHost, int targetPort) {
        try {
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot listen on a loopback port for a proxy to " + targetPort, e);
        }
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        ProxiedConnection.daemon("fault-proxy-accept-" + port(), this::accept);
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

    /** {@code host:port} of the proxy, as clients take a server's address. */
    public String address() {
        return host() + ":" + port();
    }

    /** From now on, each chunk the client sends reaches the server {@code delay} after it was read. */
    public void delayRequests(Duration delay) {
        faults.requestDelayNanos = delay.toNanos();
    }

    /**
     * What the client sends from now until {@code duration} has passed reaches the server only then, at once. A
     * request (of however many round trips) that leaves the client {@code duration} late.
     */
    public void holdRequests(Duration duration) {
        faults.requestsHeldUntilNanos = System.nanoTime() + duration.toNanos();
    }

    /** From now on, each chunk the server answers reaches the client {@code delay} after it was read. */
    public void delayReplies(Duration delay) {
        faults.replyDelayNanos = delay.toNanos();
    }

    /**
     * Holds back the next client message containing {@code marker}, once, for {@code delay} before it is passed on,
     * as a server too busy to start on it, which then runs it although the client may have given up meanwhile.
     */
    public void delayMessageContaining(byte[] marker, Duration delay) {
        faults.delayMessageContaining(marker, delay);
    }

    /**
     * Once, the next client message containing {@code marker} reaches the server, but the server's answer to it is
     * dropped and the connection closed, as a network that fails after the server acted and before its reply arrived.
     */
    public void dropReplyToMessageContaining(byte[] marker) {
        faults.dropReplyToMessageContaining(marker);
    }

    /** From now on, bytes are read but held back in both directions, connections open. A frozen server. */
    public void stall() {
        faults.stalled = true;
    }

    /** From now on, bytes in both directions are dropped without a word, as by a network that black-holes packets. */
    public void silence() {
        faults.silent = true;
    }

    /** Resets every connection and refuses new ones until {@link #restore()}. A server that is down. */
    public void refuse() {
        refusing = true;
        faults.silent = false;
        resetConnections();
    }

    /** Ends {@link #stall()}, {@link #silence()} and {@link #refuse()}. Connections that lost bytes are reset. */
    public void restore() {
        refusing = false;
        faults.silent = false;
        faults.stalled = false;
        resetConnections();
    }

    /** Closes every relayed connection and stops accepting new ones. */
    @Override
    public void close() {
        closed = true;
        ProxiedConnection.closeQuietly(listener);
        resetConnections();
    }

    private void resetConnections() {
        connections.forEach(ProxiedConnection::close);
        connections.clear();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                continue;
            }
            if (refusing || closed) {
                ProxiedConnection.closeQuietly(client);
                continue;
            }
            try {
                Socket server = new Socket(targetHost, targetPort);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                ProxiedConnection connection = new ProxiedConnection(client, server, faults);
                connections.add(connection);
                connection.start("fault-proxy-" + port());
            } catch (IOException e) {
                ProxiedConnection.closeQuietly(client);
            }
        }
    }
}
