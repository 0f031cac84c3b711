package dev.distlock.spring.actuate;

import dev.distlock.contract.servers.FreePorts;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.servers.RequiredServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** A one-member etcd started as a child process on free ports, with its data in {@code dir}. */
public record EtcdProcess(ManagedProcess process, String clientUrl) {

    public static EtcdProcess start(String name, Path dir) throws Exception {
        Path executable = ManagedProcess.findExecutable("etcd").orElse(null);
        RequiredServer.require(
                executable != null,
                "etcd",
                "no etcd executable on the PATH or in /usr/bin (Debian package etcd-server)");
        int clientPort = FreePorts.next();
        int peerPort = FreePorts.next();
        String clientUrl = "http://127.0.0.1:" + clientPort;
        String peerUrl = "http://127.0.0.1:" + peerPort;
        ManagedProcess process = ManagedProcess.start(
                name,
                List.of(
                        executable.toString(),
                        "--name=n1",
                        "--data-dir=" + dir.resolve("n1.etcd"),
                        "--listen-client-urls=" + clientUrl,
                        "--advertise-client-urls=" + clientUrl,
                        "--listen-peer-urls=" + peerUrl,
                        "--initial-advertise-peer-urls=" + peerUrl,
                        "--initial-cluster=n1=" + peerUrl,
                        "--logger=zap",
                        "--log-outputs=stderr"),
                dir,
                clientPort,
                Duration.ofSeconds(20));
        return new EtcdProcess(process, clientUrl);
    }
}
