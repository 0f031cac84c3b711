package dev.distlock.test;

import dev.distlock.contract.ReadWriteLockContract;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;

/** The controlled registry's read/write locks keep their contract. */
class ControlledReadWriteLockContractTest extends ReadWriteLockContract {

    private final TestLockServer server = new TestLockServer();

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return ControlledLockRegistry.builder().server(server).options(options).build();
    }
}
