package dev.distlock.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on loopback that can stop forwarding in both directions while keeping every
 * connection open, as a database host that stops answering (a network partition, a frozen
 * server) looks to a client: no error, just silence.
 */
final class StallingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean stalled;
    private volatile boolean refusing;
    private volatile byte[] dropReplyTo;
    private volatile byte[] delayed;
    private volatile long delayMillis;

    StallingProxy(String targetHost, int targetPort) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        daemon("proxy-accept", this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    /** From now on, bytes are read but never passed on. */
    void stall() {
        stalled = true;
    }

    /**
     * From now on, as a database that is down: every open connection is closed, and new ones are
     * closed as soon as they are accepted, before a byte reaches the database.
     */
    void refuse() throws IOException {
        refusing = true;
        for (Socket socket : sockets) {
            socket.close();
        }
        sockets.clear();
    }

    /** The database is back: new connections reach it again. */
    void admit() {
        refusing = false;
    }

    /**
     * Once: the next client message containing {@code marker} reaches the server, but the
     * server's answer to it is dropped and the connection closed, as a network that fails after
     * the database committed and before its reply arrived.
     */
    void dropReplyToMessageContaining(byte[] marker) {
        dropReplyTo = marker;
    }

    /**
     * Once: the next client message containing {@code marker} is held back for {@code millis} before it is passed
     * on, as a database too busy to start on it, which then runs it although the client may have given up meanwhile.
     */
    void delayMessageContaining(byte[] marker, long millis) {
        delayMillis = millis;
        delayed = marker;
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }

    private void accept() {
        try {
            while (!server.isClosed()) {
                Socket client = server.accept();
                if (refusing) {
                    client.close();
                    continue;
                }
                Socket target = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(target);
                Connection connection = new Connection(client, target);
                daemon("proxy-up", () -> pump(client, target, connection, true));
                daemon("proxy-down", () -> pump(target, client, connection, false));
            }
        } catch (IOException e) {
            // closed
        }
    }

    /** One proxied connection; {@code dropNextReply} marks one whose next answer is to be dropped. */
    private static final class Connection {
        final Socket client;
        final Socket target;
        volatile boolean dropNextReply;

        Connection(Socket client, Socket target) {
            this.client = client;
            this.target = target;
        }
    }

    private void pump(Socket from, Socket to, Connection connection, boolean upstream) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                while (stalled && !from.isClosed()) {
                    Thread.sleep(20);
                }
                byte[] slow = delayed;
                if (upstream && slow != null && contains(buffer, read, slow)) {
                    delayed = null;
                    Thread.sleep(delayMillis);
                }
                byte[] marker = dropReplyTo;
                if (upstream && marker != null && contains(buffer, read, marker)) {
                    dropReplyTo = null;
                    connection.dropNextReply = true;
                } else if (!upstream && connection.dropNextReply) {
                    connection.client.close();
                    connection.target.close();
                    return;
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // one side closed
        }
    }

    private static boolean contains(byte[] buffer, int length, byte[] marker) {
        outer:
        for (int i = 0; i + marker.length <= length; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (buffer[i + j] != marker[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }
}
