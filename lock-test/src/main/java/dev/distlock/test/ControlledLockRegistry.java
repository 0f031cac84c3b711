package dev.distlock.test;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.core.spi.RegistryBuilder;
import java.util.Objects;

/**
 * A real {@link dev.distlock.core.LockRegistry} (reentrant, leased, fenced: it passes the contract
 * kit) over a simulated server that a test steers through {@link #control()}. Other instances'
 * holds, lost leases, outages, slowness and time. Registries built over one {@link TestLockServer}
 * behave like instances sharing a server.
 *
 * <p>Read/write locks are the in-memory backend's. They hold and exclude as usual, but the
 * control does not steer them.
 */
public final class ControlledLockRegistry extends LockRegistrySupport {

    private final LockControl control;

    private ControlledLockRegistry(ControlledBackend backend, TestLockServer server, RegistryOptions options) {
        super(backend, server.readWrite().readWriteLocks(options), options);
        backend.attach(this);
        this.control = new LockControl(server, this);
    }

    private ControlledLockRegistry(TestLockServer server, RegistryOptions options) {
        this(new ControlledBackend(server, options.keyPrefix()), server, options);
    }

    /** A registry over a server of its own, with default options. */
    public ControlledLockRegistry() {
        this(new TestLockServer(), RegistryOptions.defaults());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** What the test steers and inspects. */
    public LockControl control() {
        return control;
    }

    /** Builds a {@link ControlledLockRegistry}. */
    public static final class Builder extends RegistryBuilder<Builder, ControlledLockRegistry> {

        private TestLockServer server = new TestLockServer();

        private Builder() {}

        /** Share a server with other registries (other instances). By default each registry has its own. */
        public Builder server(TestLockServer server) {
            this.server = Objects.requireNonNull(server, "server");
            return this;
        }

        @Override
        public ControlledLockRegistry build() {
            return new ControlledLockRegistry(server, options());
        }
    }
}
