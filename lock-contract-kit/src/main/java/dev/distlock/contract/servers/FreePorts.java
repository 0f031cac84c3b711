package dev.distlock.contract.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/** Free TCP ports on the loopback interface for servers that tests start. */
public final class FreePorts {

    private static final Set<Integer> handedOut = new HashSet<>();

    private FreePorts() {}

    /** A port that was free a moment ago and has not been handed out by this JVM before. */
    public static synchronized int next() {
        for (int attempt = 0; attempt < 100; attempt++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                socket.setReuseAddress(true);
                int port = socket.getLocalPort();
                // Redis Cluster uses port + 10000 for its bus, so keep clear of the top of the range.
                if (port < 55000 && handedOut.add(port)) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("No free loopback port", e);
            }
        }
        throw new IllegalStateException("No free loopback port after 100 attempts");
    }
}
