package dev.distlock.zookeeper;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * Tests on one in-process server per class: a client per simulated JVM from {@link #clients},
 * and {@link #threads} for work that runs beside the test's own thread, stopped after each test.
 */
abstract class OneServerIT {

    static TestingServer server;
    static final CuratorClients clients = new CuratorClients();
    final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        clients.closeAll();
        server.close();
    }

    @AfterEach
    void stopThreads() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
    }
}
