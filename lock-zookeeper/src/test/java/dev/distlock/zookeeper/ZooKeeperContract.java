package dev.distlock.zookeeper;

import dev.distlock.contract.LockRegistryContract;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The contract on a ZooKeeper ensemble: each registry gets its own Curator client, standing for
 * its own JVM. Subclasses start the ensemble and close {@link #clients} before stopping it.
 */
abstract class ZooKeeperContract extends LockRegistryContract {

    static final CuratorClients clients = new CuratorClients();

    /** Where the ensemble under test listens. */
    abstract String connectString();

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return ZooKeeperLockRegistry.builder(clients.connect(connectString()))
                .options(options)
                .build();
    }

    @Override
    protected boolean holdsLastAsSessions() {
        return true;
    }

    /** Runs after the kit's set-up: the clients of the previous test, whose registries the kit closed, go now. */
    @BeforeEach
    void closePreviousClients() {
        clients.closeRetired();
    }

    @AfterEach
    void retireClients() {
        clients.retireAll();
    }
}
