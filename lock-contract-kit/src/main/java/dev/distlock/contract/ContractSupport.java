package dev.distlock.contract;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * What both entry points of the kit share. The backend's factory and timing hooks, and the registries, threads
 * and keys of one test. A backend's test class extends {@link LockRegistryContract} or {@link
 * ReadWriteLockContract}, not this class.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
public abstract class ContractSupport {

    private final List<AutoCloseable> registries = new ArrayList<>();
    private final String keyPrefix;
    private ExecutorService threads;
    private String testName;

    /** Registry of "JVM A" and "JVM B", independent registries over the same server. */
    protected LockRegistry registryA;

    protected LockRegistry registryB;

    ContractSupport(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    /**
     * A new registry over the server under test, built with {@code options} (lease time of
     * the watchdog, key prefix). The kit closes it after the test.
     */
    protected abstract LockRegistry createRegistry(RegistryOptions options);

    /**
     * The short lease of the tests about expiry, renewal and loss. Their fixed leases, and the watchdog
     * lease of {@link #shortLeaseRegistry()}. Override where the backend has a coarser minimum.
     */
    protected Duration leaseTime() {
        return Duration.ofMillis(1000);
    }

    /**
     * The watchdog lease of {@link #registryA}, {@link #registryB} and {@link #newRegistry()}. Long
     * enough that a renewal delayed by a loaded machine never loses a hold in a test about something else.
     */
    protected Duration holdLeaseTime() {
        return Duration.ofSeconds(10);
    }

    /**
     * How late a wake-up or a timed-out wait may return, given the backend's round trips. The registries' answer
     * budget (contract 8), which is the default one.
     */
    protected Duration timingSlack() {
        return RegistryOptions.DEFAULT_ANSWER_BUDGET;
    }

    @BeforeEach
    void openRegistries(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
        threads = Executors.newCachedThreadPool();
        registryA = newRegistry();
        registryB = newRegistry();
    }

    @AfterEach
    void closeRegistries() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        for (int i = registries.size() - 1; i >= 0; i--) {
            AutoCloseable registry = registries.get(i);
            try {
                registry.close();
            } catch (Exception e) {
                throw new IllegalStateException("Closing " + registry + " after the test failed", e);
            }
        }
        registries.clear();
    }

    /** Another registry ("JVM") over the same server, closed after the test. */
    protected final LockRegistry newRegistry() {
        return newRegistry(RegistryOptions.defaults().withLeaseTime(holdLeaseTime()));
    }

    /** A registry whose watchdog lease is {@link #leaseTime()}, for the tests about expiry, renewal and loss. */
    protected final LockRegistry shortLeaseRegistry() {
        return newRegistry(RegistryOptions.defaults().withLeaseTime(leaseTime()));
    }

    /** A registry built with {@code options}, closed after the test. */
    protected final LockRegistry newRegistry(RegistryOptions options) {
        LockRegistry registry = createRegistry(options);
        registries.add(registry);
        return registry;
    }

    /** Closes {@code resource} after the test, with the registries, the latest first. */
    protected final <T extends AutoCloseable> T closeAfterTest(T resource) {
        registries.add(resource);
        return resource;
    }

    /** A key no other test (or earlier run against a persistent server) uses. */
    protected final String key(String suffix) {
        return keyPrefix + testName + "-" + suffix + "-"
                + UUID.randomUUID().toString().substring(0, 8);
    }

    /** A key no other test (or earlier run against a persistent server) uses. */
    protected final String key() {
        return key("k");
    }

    /** Runs {@code task} on a thread of the test's pool, stopped after the test. */
    protected final <T> Future<T> inThread(Callable<T> task) {
        return threads.submit(task);
    }
}
