package dev.distlock.test;

import dev.distlock.contract.LockRegistryContract;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;

/** Left alone, the controlled registry keeps the contract like a real backend. */
class ControlledLockRegistryContractTest extends LockRegistryContract {

    private final TestLockServer server = new TestLockServer();

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return ControlledLockRegistry.builder().server(server).options(options).build();
    }
}
