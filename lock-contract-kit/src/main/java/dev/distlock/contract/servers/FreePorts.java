package dev.distlock.contract.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

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

    /**
     * A free port whose partner {@code port + offset} is free too, as a Redis Cluster node needs for its bus. Both lie
     * below the range the system hands out to outgoing connections, so no client socket of another process takes the
     * partner between this check and the server's start.
     */
    public static synchronized int nextWithPartner(int offset) {
        int low = 10_000;
        int high = ephemeralLow() - offset;
        if (high <= low) {
            throw new IllegalStateException("No room for a port and its partner " + offset + " above it below "
                    + ephemeralLow() + ", where outgoing connections take their ports");
        }
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(low, high);
            if (!handedOut.contains(port)
                    && !handedOut.contains(port + offset)
                    && bindable(port)
                    && bindable(port + offset)) {
                handedOut.add(port);
                handedOut.add(port + offset);
                return port;
            }
        }
        throw new IllegalStateException(
                "No free loopback port with a free partner " + offset + " above it after 200" + " attempts");
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first port Linux hands out to outgoing connections. 32768 where the system does not say. */
    private static int ephemeralLow() {
        try {
            // Read by lines. A whole-file read of a /proc file may stop after its first byte.
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .get(0);
            return Integer.parseInt(range.trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
