package dev.distlock.zookeeper;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.core.spi.ReadWriteLocks;
import dev.distlock.core.spi.RegistryBuilder;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;

/**
 * Distributed locks on ZooKeeper, over the application's {@link CuratorFramework}. The registry uses the client's
 * connection string, namespace, ACL provider and authentication as they are, and never closes it. Closing the client
 * ends the session and frees all its nodes, including holds that linger for their minimum after {@link #close()}. So
 * close the client after {@link #awaitClosed(java.time.Duration)}.
 *
 * <p>A hold is an ephemeral-sequential node, so it lasts as long as the client's session. There is no lease to renew,
 * and a crashed owner's lock frees itself after the session timeout. The registry confirms each hold every third of the
 * session timeout, so a holder that was paused past it knows its hold is gone the moment it resumes. A fixed lease
 * ({@code tryAcquire(wait, lease)}) is enforced by the owner, which deletes its node when the lease ends. Fencing
 * tokens are the owner node's {@code czxid}.
 *
 * <p>Read/write locks ({@link #readWriteLock(String)}) keep a queue of their own per key, {@code <root>/<encoded
 * key>:rw}, beside the plain lock's {@code <root>/<encoded key>}. Read and write nodes stand in the order they came, so
 * readers who come after a waiting writer queue behind it once its grace ({@link RegistryOptions#writerGrace}) has
 * ended. They last as long as the session, as plain holds do.
 */
public final class ZooKeeperLockRegistry extends LockRegistrySupport {

    /** Where lock nodes live unless {@link Builder#rootPath(String)} says otherwise. */
    public static final String DEFAULT_ROOT_PATH = "/distlock";

    private final String rootPath;

    /** A registry over {@code backend} without read/write locks, for tests that pass collaborators of their own. */
    ZooKeeperLockRegistry(ZooKeeperLockBackend backend, RegistryOptions options) {
        super(backend, options);
        this.rootPath = backend.rootPath();
    }

    private ZooKeeperLockRegistry(
            ZooKeeperLockBackend backend, ReadWriteLocks readWriteLocks, RegistryOptions options) {
        super(backend, readWriteLocks, options);
        this.rootPath = backend.rootPath();
    }

    /** A builder over {@code client}, which must be started. The registry uses it and never closes it. */
    public static Builder builder(CuratorFramework client) {
        return new Builder(client);
    }

    /** The node under which every key has its own child (inside the client's namespace). */
    public String rootPath() {
        return rootPath;
    }

    /** Builds a {@link ZooKeeperLockRegistry}. */
    public static final class Builder extends RegistryBuilder<Builder, ZooKeeperLockRegistry> {

        private final CuratorFramework client;
        private String rootPath = DEFAULT_ROOT_PATH;

        private Builder(CuratorFramework client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /** The node under which lock nodes are created (as needed), {@value #DEFAULT_ROOT_PATH} by default. */
        public Builder rootPath(String rootPath) {
            this.rootPath = rootPath;
            return this;
        }

        // leaseTime(..) has no effect on held locks here. They last as long as the session.

        @Override
        public ZooKeeperLockRegistry build() {
            LockPaths paths = new LockPaths(rootPath);
            if (client.getState() != CuratorFrameworkState.STARTED) {
                throw new IllegalStateException("The CuratorFramework for the ZooKeeper lock registry is "
                        + client.getState() + "; start it before building the registry (the registry never starts"
                        + " or closes the application's client).");
            }
            ZooKeeperLockBackend backend = new ZooKeeperLockBackend(
                    client, paths, QueueRule.MUTEX, options().answerBudget());
            return new ZooKeeperLockRegistry(
                    backend, ZooKeeperReadWriteBackend.locks(backend, paths, options()), options());
        }
    }
}
