package dev.distlock.etcd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Relays in front of the peer ports of etcd members, so that a test can cut one member off
 * from the others in both directions while its client port keeps answering. etcd's peer
 * requests name their sender ({@code X-Server-From}); a connection is refused or closed when
 * its sender or its receiver is cut off.
 */
final class PeerLinks implements AutoCloseable {

    private final List<Relay> relays = new ArrayList<>();
    private final Set<String> cutOff = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** One relay per member's real peer port, in member order. */
    PeerLinks(List<Integer> peerPorts) {
        for (int i = 0; i < peerPorts.size(); i++) {
            relays.add(new Relay(i, peerPorts.get(i)));
        }
    }

    /** The port that stands for member {@code index}'s peer port in the cluster's configuration. */
    int port(int index) {
        return relays.get(index).listener.getLocalPort();
    }

    /** Cuts member {@code index} (whose Raft id in hex is {@code memberId}) off from every other member. */
    void cutOff(int index, String memberId) {
        cutOff.add(memberId);
        cutOff.add("#" + index);
        for (Relay relay : relays) {
            relay.links.forEach(link -> {
                if (link.blocked()) {
                    link.close();
                }
            });
        }
    }

    @Override
    public void close() {
        closed = true;
        relays.forEach(relay -> {
            closeQuietly(relay.listener);
            relay.links.forEach(Link::close);
        });
    }

    private final class Relay {
        final int index;
        final int targetPort;
        final ServerSocket listener;
        final Set<Link> links = ConcurrentHashMap.newKeySet();

        Relay(int index, int targetPort) {
            this.index = index;
            this.targetPort = targetPort;
            try {
                listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            daemon(() -> {
                while (!closed) {
                    try {
                        Socket from = listener.accept();
                        daemon(() -> open(from));
                    } catch (IOException e) {
                        // closed
                    }
                }
            });
        }

        private void open(Socket from) {
            try {
                byte[] head = readHead(from.getInputStream());
                Link link = new Link(this, from, senderOf(head));
                if (link.blocked()) {
                    link.close();
                    return;
                }
                link.to = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                links.add(link);
                link.to.getOutputStream().write(head);
                daemon(() -> pump(link, from, link.to));
                daemon(() -> pump(link, link.to, from));
            } catch (IOException e) {
                closeQuietly(from);
            }
        }
    }

    private final class Link {
        final Relay relay;
        final Socket from;
        final String sender;
        volatile Socket to;

        Link(Relay relay, Socket from, String sender) {
            this.relay = relay;
            this.from = from;
            this.sender = sender;
        }

        boolean blocked() {
            return cutOff.contains("#" + relay.index) || (sender != null && cutOff.contains(sender));
        }

        void close() {
            relay.links.remove(this);
            closeQuietly(from);
            if (to != null) {
                closeQuietly(to);
            }
        }
    }

    /** Reads up to the end of the first HTTP request head (or what arrived of it). */
    private static byte[] readHead(InputStream in) throws IOException {
        byte[] buffer = new byte[16 * 1024];
        int length = 0;
        while (length < buffer.length) {
            int n = in.read(buffer, length, buffer.length - length);
            if (n < 0) {
                break;
            }
            length += n;
            if (new String(buffer, 0, length, StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
                break;
            }
        }
        byte[] head = new byte[length];
        System.arraycopy(buffer, 0, head, 0, length);
        return head;
    }

    private static String senderOf(byte[] head) {
        for (String line : new String(head, StandardCharsets.ISO_8859_1).split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("x-server-from:")) {
                return line.substring("x-server-from:".length()).trim();
            }
        }
        return null;
    }

    private static void pump(Link link, Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed, or the link was cut
        } finally {
            link.close();
        }
    }

    private static void daemon(Runnable task) {
        Thread thread = new Thread(task, "etcd-peer-link");
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
