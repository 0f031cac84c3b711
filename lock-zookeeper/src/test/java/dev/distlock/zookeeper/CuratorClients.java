package dev.distlock.zookeeper;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

/**
 * Curator clients for tests, one per simulated JVM, with short timeouts so that session loss
 * shows within seconds. Clients are closed in batches, after the registries over them.
 */
final class CuratorClients {

    static final int SESSION_TIMEOUT_MS = 4000;
    static final int CONNECTION_TIMEOUT_MS = 2000;

    private final List<CuratorFramework> open = new ArrayList<>();
    private final List<CuratorFramework> retired = new ArrayList<>();

    /** A started client that is connected to {@code connectString}. */
    synchronized CuratorFramework connect(String connectString) {
        return connect(CuratorFrameworkFactory.builder().connectString(connectString));
    }

    /** A started, connected client from {@code builder} with the test timeouts applied. */
    synchronized CuratorFramework connect(CuratorFrameworkFactory.Builder builder) {
        CuratorFramework client = builder.sessionTimeoutMs(SESSION_TIMEOUT_MS)
                .connectionTimeoutMs(CONNECTION_TIMEOUT_MS)
                .retryPolicy(new RetryNTimes(3, 100))
                .build();
        client.start();
        try {
            if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
                client.close();
                throw new IllegalStateException("ZooKeeper test server did not accept a connection within 20 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        open.add(client);
        return client;
    }

    /** Marks the clients opened so far for closing at the next {@link #closeRetired()}. */
    synchronized void retireAll() {
        retired.addAll(open);
        open.clear();
    }

    synchronized void closeRetired() {
        retired.forEach(CuratorFramework::close);
        retired.clear();
    }

    synchronized void closeAll() {
        retireAll();
        closeRetired();
    }
}
