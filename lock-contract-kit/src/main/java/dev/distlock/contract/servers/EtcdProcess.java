package dev.distlock.contract.servers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One etcd member run as a child process on free loopback ports, and the URL its clients use. A member alone (a
 * cluster of one), or with {@link #member(String)} one member of a new cluster.
 */
public record EtcdProcess(ManagedProcess process, String clientUrl) implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    /** The etcd executable. Fails (CI) or skips the calling test when it is not installed. */
    public static Path requireExecutable() {
        Path etcd = ManagedProcess.findExecutable("etcd").orElse(null);
        RequiredServer.require(
                etcd != null, "etcd", "no etcd executable on the PATH or in /usr/bin (Debian package etcd-server)");
        return etcd;
    }

    /** A member alone named {@code name}, with its data and its log ({@code name.log}) in {@code dir}. */
    public static EtcdProcess start(String name, Path dir) {
        return start(requireExecutable(), name, dir);
    }

    /** Like {@link #start(String, Path)}, with an executable the caller found. */
    public static EtcdProcess start(Path executable, String name, Path dir) {
        return member(name).start(executable, name, dir);
    }

    /** The settings of a member named {@code name}, alone on free ports with its data in the log directory. */
    public static Member member(String name) {
        return new Member(name);
    }

    public int port() {
        return process.port();
    }

    @Override
    public void close() {
        process.close();
    }

    /** How one member is started. Its name, ports, data directory, cluster and further flags. */
    public static final class Member {

        private final String name;
        private int clientPort;
        private int peerPort;
        private Path dataDir;
        private String advertisedPeerUrl;
        private String initialCluster;
        private final List<String> flags = new ArrayList<>();

        private Member(String name) {
            this.name = name;
        }

        /** The ports it listens on. Free ones when not set. */
        public Member ports(int clientPort, int peerPort) {
            this.clientPort = clientPort;
            this.peerPort = peerPort;
            return this;
        }

        /** Where it keeps its data; {@code name.etcd} in the log directory when not set. */
        public Member dataDir(Path dataDir) {
            this.dataDir = dataDir;
            return this;
        }

        /** The peer URL the others reach it at and the whole cluster ({@code name=peerUrl,...}). Alone when not set. */
        public Member cluster(String advertisedPeerUrl, String initialCluster) {
            this.advertisedPeerUrl = advertisedPeerUrl;
            this.initialCluster = initialCluster;
            return this;
        }

        /** Further command-line flags, such as {@code --election-timeout=500}. */
        public Member flags(String... flags) {
            this.flags.addAll(List.of(flags));
            return this;
        }

        /** Starts it and waits until its client port accepts connections. Its log is {@code logName.log}. */
        public EtcdProcess start(Path executable, String logName, Path logDir) {
            int client = clientPort != 0 ? clientPort : FreePorts.next();
            int peer = peerPort != 0 ? peerPort : FreePorts.next();
            String clientUrl = "http://127.0.0.1:" + client;
            String peerUrl = "http://127.0.0.1:" + peer;
            String advertised = advertisedPeerUrl != null ? advertisedPeerUrl : peerUrl;
            List<String> command = new ArrayList<>(List.of(
                    executable.toString(),
                    "--name=" + name,
                    "--data-dir=" + (dataDir != null ? dataDir : logDir.resolve(name + ".etcd")),
                    "--listen-client-urls=" + clientUrl,
                    "--advertise-client-urls=" + clientUrl,
                    "--listen-peer-urls=" + peerUrl,
                    "--initial-advertise-peer-urls=" + advertised,
                    "--initial-cluster=" + (initialCluster != null ? initialCluster : name + "=" + advertised),
                    "--logger=zap",
                    "--log-outputs=stderr"));
            command.addAll(flags);
            return new EtcdProcess(ManagedProcess.start(logName, command, logDir, client, START_TIMEOUT), clientUrl);
        }
    }
}
