package dev.distlock.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a ZooKeeper server that can go silent: connections stay open and
 * accept bytes, but nothing reaches the server and nothing comes back, as with a black-holed
 * network (not a refused connection, which a client notices at once).
 */
final class SilentProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean silent;

    SilentProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "silent-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** From now on, bytes in either direction are swallowed. */
    void silence() {
        silent = true;
    }

    /** Bytes flow again (on connections opened from now on; the client reconnects by itself). */
    void speak() {
        silent = false;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(
                () -> {
                    byte[] buffer = new byte[8192];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int n;
                        while ((n = in.read(buffer)) >= 0) {
                            if (!silent) {
                                out.write(buffer, 0, n);
                                out.flush();
                            }
                        }
                    } catch (IOException e) {
                        // either side closed
                    }
                },
                "silent-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }
}
