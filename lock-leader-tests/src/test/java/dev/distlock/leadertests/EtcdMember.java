package dev.distlock.leadertests;

import dev.distlock.contract.servers.FreePorts;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.servers.RequiredServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** One etcd member on free loopback ports in a temporary directory, for the tests of one class. */
final class EtcdMember {

    private EtcdMember() {}

    /** Starts a member; close the returned process after the tests. */
    static ManagedProcess start() throws Exception {
        Path etcd = ManagedProcess.findExecutable("etcd").orElse(null);
        RequiredServer.require(etcd != null, "etcd", "no etcd executable on the PATH or in /usr/bin");
        Path dir = Files.createTempDirectory("distlock-leader-etcd-");
        int clientPort = FreePorts.next();
        String clientUrl = "http://127.0.0.1:" + clientPort;
        String peerUrl = "http://127.0.0.1:" + FreePorts.next();
        return ManagedProcess.start(
                "etcd",
                List.of(
                        etcd.toString(),
                        "--name=leader-test",
                        "--data-dir=" + dir.resolve("data"),
                        "--listen-client-urls=" + clientUrl,
                        "--advertise-client-urls=" + clientUrl,
                        "--listen-peer-urls=" + peerUrl,
                        "--initial-advertise-peer-urls=" + peerUrl,
                        "--initial-cluster=leader-test=" + peerUrl,
                        "--logger=zap",
                        "--log-outputs=stderr"),
                dir,
                clientPort,
                Duration.ofSeconds(20));
    }

    /** The backend words of {@link BackendClients} for {@code member}. */
    static List<String> spec(ManagedProcess member) {
        return List.of("etcd", "http://127.0.0.1:" + member.port());
    }
}
