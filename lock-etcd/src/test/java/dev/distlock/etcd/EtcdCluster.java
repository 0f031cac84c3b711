package dev.distlock.etcd;

import dev.distlock.contract.servers.EtcdProcess;
import dev.distlock.contract.servers.FaultProxies;
import dev.distlock.contract.servers.FreePorts;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.maintenance.StatusResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * etcd members started as child processes on free loopback ports, each with a data directory
 * under {@code dir}, so a test can kill one and start it again on the same data. Raft runs with
 * a 50 ms heartbeat and a 500 ms election timeout: etcd's shortest lease is 1.5 election
 * timeouts, and with the default 1 s it would stretch the contract's 1 s leases to 2 s.
 */
final class EtcdCluster implements AutoCloseable {

    private final List<ManagedProcess> members = new ArrayList<>();
    private final List<String> clientUrls = new ArrayList<>();
    private PeerLinks peerLinks;
    private Path dataDir;

    private Path logDir;

    private EtcdCluster() {}

    /**
     * Data in memory (/dev/shm) where there is such a place: on machines shared with other builds a
     * disk's fsync can take longer than the contract's timing slack. Logs stay in {@code dir}.
     */
    private static Path dataDirectory(Path dir) {
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            try {
                return Files.createTempDirectory(shm, "distlock-etcd-");
            } catch (IOException e) {
                // fall back to the disk
            }
        }
        return dir;
    }

    private static void deleteQuietly(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // left for the OS to clear
        }
    }

    /** Starts {@code size} members forming one new cluster and waits until it answers. */
    static EtcdCluster start(int size, Path dir) {
        return start(size, dir, false);
    }

    /** Like {@link #start(int, Path)}, with the members' peer traffic relayed so that {@link #cutOff} can part them. */
    static EtcdCluster startWithPeerLinks(int size, Path dir) {
        return start(size, dir, true);
    }

    private static EtcdCluster start(int size, Path dir, boolean linked) {
        Path etcd = EtcdProcess.requireExecutable();
        EtcdCluster cluster = new EtcdCluster();
        cluster.logDir = dir;
        List<Integer> clientPorts = new ArrayList<>();
        List<Integer> peerPorts = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            clientPorts.add(FreePorts.next());
            peerPorts.add(FreePorts.next());
        }
        if (linked) {
            cluster.peerLinks = new PeerLinks(peerPorts);
        }
        cluster.dataDir = dataDirectory(dir);
        List<String> advertisedPeerUrls = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            advertisedPeerUrls.add("http://127.0.0.1:" + (linked ? cluster.peerLinks.port(i) : peerPorts.get(i)));
        }
        String initialCluster = "";
        for (int i = 0; i < size; i++) {
            initialCluster += (i == 0 ? "" : ",") + "n" + i + "=" + advertisedPeerUrls.get(i);
        }
        try {
            for (int i = 0; i < size; i++) {
                EtcdProcess member = EtcdProcess.member("n" + i)
                        .ports(clientPorts.get(i), peerPorts.get(i))
                        .dataDir(cluster.dataDir.resolve("n" + i + ".etcd"))
                        .cluster(advertisedPeerUrls.get(i), initialCluster)
                        .flags(
                                "--initial-cluster-state=new",
                                "--initial-cluster-token=distlock-test",
                                "--heartbeat-interval=50",
                                "--election-timeout=500")
                        .start(etcd, "etcd-n" + i, dir);
                cluster.clientUrls.add(member.clientUrl());
                cluster.members.add(member.process());
            }
            cluster.awaitReady(Duration.ofSeconds(30));
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    int size() {
        return members.size();
    }

    ManagedProcess member(int index) {
        return members.get(index);
    }

    String clientUrl(int index) {
        return clientUrls.get(index);
    }

    /** The client URLs joined by commas, as in messages. */
    String endpoints() {
        return String.join(",", clientUrls);
    }

    /** A jetcd client over every member (the caller closes it). */
    Client newClient() {
        return EtcdLockRegistry.requireLeader(Client.builder())
                .endpoints(clientUrls.toArray(String[]::new))
                .build();
    }

    /** A client over every member but the ones in {@code skip}. */
    Client newClientExcept(int skip) {
        List<String> urls = new ArrayList<>(clientUrls);
        urls.remove(skip);
        return Client.builder().endpoints(urls.toArray(String[]::new)).build();
    }

    /** A registry with a client of its own, standing for another JVM; closing it closes the client too. */
    LockRegistry newRegistry(RegistryOptions options) {
        return newRegistry(options, EtcdLockRegistry.DEFAULT_REQUEST_TIMEOUT);
    }

    /** A registry whose client reaches every member through {@code proxies}. */
    LockRegistry newRegistryThrough(FaultProxies proxies, RegistryOptions options) {
        String[] proxied = clientUrls.stream()
                .map(url -> "http://127.0.0.1:"
                        + proxies.to("127.0.0.1", URI.create(url).getPort()).port())
                .toArray(String[]::new);
        Client client = EtcdLockRegistry.requireLeader(Client.builder())
                .endpoints(proxied)
                .build();
        return new OwnClientRegistry(
                EtcdLockRegistry.builder(client)
                        .options(options)
                        .address(String.join(",", proxied))
                        .build(),
                client);
    }

    LockRegistry newRegistry(RegistryOptions options, Duration requestTimeout) {
        Client client = newClient();
        return new OwnClientRegistry(
                EtcdLockRegistry.builder(client)
                        .options(options)
                        .address(endpoints())
                        .requestTimeout(requestTimeout)
                        .build(),
                client);
    }

    /**
     * Cuts member {@code index} off from the other members (not from clients): it loses its
     * leader and keeps answering clients. Needs {@link #startWithPeerLinks}.
     */
    void cutOff(int index) {
        try (Client client = newClient()) {
            String name = "n" + index;
            long id = client.getClusterClient().listMember().get(5, TimeUnit.SECONDS).getMembers().stream()
                    .filter(member -> member.getName().equals(name))
                    .findFirst()
                    .orElseThrow()
                    .getId();
            peerLinks.cutOff(index, Long.toHexString(id));
        } catch (Exception e) {
            throw new IllegalStateException("Could not cut member " + index + " of " + this + " off", e);
        }
    }

    /** The member that is Raft leader now. */
    int leaderIndex() {
        try (Client client = newClient()) {
            for (int i = 0; i < members.size(); i++) {
                if (!members.get(i).isAlive()) {
                    continue;
                }
                StatusResponse status = client.getMaintenanceClient()
                        .statusMember(members.get(i).address())
                        .get(5, TimeUnit.SECONDS);
                if (status.getLeader() == status.getHeader().getMemberId()) {
                    return i;
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("Could not ask " + this + " for its leader", e);
        }
        throw new IllegalStateException("No member of " + this + " says it is the leader");
    }

    /** Waits until a linearizable read succeeds, which needs an elected leader. */
    void awaitReady(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        try (Client client = newClient()) {
            Exception last = null;
            while (System.nanoTime() < end) {
                try {
                    client.getKVClient()
                            .get(io.etcd.jetcd.ByteSequence.from("/ready", StandardCharsets.UTF_8))
                            .get(1, TimeUnit.SECONDS);
                    return;
                } catch (Exception e) {
                    last = e;
                }
            }
            throw new IllegalStateException(
                    "etcd at " + endpoints() + " did not answer within " + timeout + "; see the etcd-n*.log files",
                    last);
        }
    }

    @Override
    public void close() {
        members.forEach(ManagedProcess::close);
        if (dataDir != null && !dataDir.startsWith(logDir)) {
            deleteQuietly(dataDir);
        }
        if (peerLinks != null) {
            peerLinks.close();
        }
    }

    @Override
    public String toString() {
        return members.stream().map(ManagedProcess::address).collect(Collectors.joining(",", "etcd[", "]"));
    }
}
