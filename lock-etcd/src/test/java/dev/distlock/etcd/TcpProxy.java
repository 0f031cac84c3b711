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
 * A loopback TCP relay in front of a server, which a test can cut: open connections are
 * closed and new ones refused, as in a network partition between one client and the server.
 */
final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;

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

    @Override
    public void close() {
        cut();
    }

    private void acceptLoop() {
        while (!cut) {
            try {
                Socket client = listener.accept();
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

    private static void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
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
