package dev.distlock.etcd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP relay in front of a server, which a test can cut (open connections are
 * closed and new ones refused) or silence (bytes are dropped without a word, as by a network
 * that black-holes packets, until {@link #restore()} resets the connections that lost bytes).
 */
final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private volatile boolean silent;
    private volatile boolean refusing;

    TcpProxy(int targetPort) {
        this.targetPort = targetPort;
        try {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        daemon("proxy-accept", this::acceptLoop);
    }

    int port() {
        return listener.getLocalPort();
    }

    String url() {
        return "http://127.0.0.1:" + port();
    }

    /** Closes every relayed connection and stops accepting new ones. */
    void cut() {
        cut = true;
        closeQuietly(listener);
        sockets.forEach(TcpProxy::closeQuietly);
    }

    /** Drops every byte in both directions from now on; nothing is closed, so nobody notices. */
    void silence() {
        silent = true;
    }

    /** Resets every connection and refuses new ones until {@link #restore()}: a server that is down. */
    void refuse() {
        refusing = true;
        silent = false;
        sockets.forEach(TcpProxy::closeQuietly);
        sockets.clear();
    }

    /** Ends {@link #silence()} or {@link #refuse()}: the connections that lost bytes are reset, new ones relay again. */
    void restore() {
        refusing = false;
        silent = false;
        sockets.forEach(TcpProxy::closeQuietly);
        sockets.clear();
    }

    @Override
    public void close() {
        cut();
    }

    private void acceptLoop() {
        while (!cut) {
            try {
                Socket client = listener.accept();
                if (refusing) {
                    closeQuietly(client);
                    continue;
                }
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(server);
                if (cut) {
                    closeQuietly(client);
                    closeQuietly(server);
                    return;
                }
                daemon("proxy-up", () -> pump(client, server));
                daemon("proxy-down", () -> pump(server, client));
            } catch (IOException e) {
                if (!cut) {
                    continue;
                }
                return;
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (silent) {
                    continue;
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // the other side closed, or the proxy was cut
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // already closed
        }
    }
}
