package dev.distlock.contract;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

/**
 * Base of the rule groups, each holding the tests of one rule, run as a {@code @Nested} group of an entry point ({@link
 * LockRegistryContract}, {@link ReadWriteLockContract}) and reading the backend's registries and hooks from it.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
abstract class ContractGroup<C extends ContractSupport> {

    private final C contract;

    /** The entry point's registries of "JVM A" and "JVM B", bound before each test. */
    LockRegistry registryA;

    LockRegistry registryB;

    ContractGroup(C contract) {
        this.contract = contract;
    }

    /** Runs after the entry point's set-up, which opened the registries. */
    @BeforeEach
    void bindRegistries() {
        registryA = contract.registryA;
        registryB = contract.registryB;
    }

    final C contract() {
        return contract;
    }

    final Duration leaseTime() {
        return contract.leaseTime();
    }

    final Duration holdLeaseTime() {
        return contract.holdLeaseTime();
    }

    final Duration timingSlack() {
        return contract.timingSlack();
    }

    final LockRegistry newRegistry() {
        return contract.newRegistry();
    }

    final LockRegistry newRegistry(RegistryOptions options) {
        return contract.newRegistry(options);
    }

    final LockRegistry shortLeaseRegistry() {
        return contract.shortLeaseRegistry();
    }

    final String key() {
        return contract.key();
    }

    final String key(String suffix) {
        return contract.key(suffix);
    }

    final <T> Future<T> inThread(Callable<T> task) {
        return contract.inThread(task);
    }

    static <T> T await(Future<T> future) throws Exception {
        return future.get(60, TimeUnit.SECONDS);
    }

    static Throwable failureOf(Callable<?> task) {
        try {
            task.call();
            return null;
        } catch (Throwable e) {
            return e;
        }
    }
}
