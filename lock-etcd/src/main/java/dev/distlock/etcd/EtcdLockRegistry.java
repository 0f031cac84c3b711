package dev.distlock.etcd;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.core.spi.ReadWriteLocks;
import dev.distlock.core.spi.RegistryBuilder;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.time.Duration;
import java.util.Objects;

/**
 * Locks in etcd, over the application's jetcd {@link Client}. Each hold is a key under the
 * namespace, attached to the registry's one session lease, and its create revision is the fencing
 * token. Build the client with {@link #requireLeader(ClientBuilder)}. Closing the registry
 * releases its holds and revokes its session lease. The client stays open.
 */
public final class EtcdLockRegistry extends LockRegistrySupport {

    /** How long one etcd request may take before the lock call fails with a {@code LockBackendException}. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);

    private final String namespace;

    private EtcdLockRegistry(EtcdLockBackend backend, ReadWriteLocks readWriteLocks, RegistryOptions options) {
        super(backend, readWriteLocks, options);
        this.namespace = backend.context().keys().namespace();
    }

    /**
     * Makes the clients {@code builder} builds send etcd's require-leader header. A member cut off
     * from the Raft leader then refuses a request at once, and the registry retries it on the next
     * endpoint, instead of waiting for an answer that does not come.
     *
     * @param builder the jetcd client builder
     * @return {@code builder}, for chaining
     */
    public static ClientBuilder requireLeader(ClientBuilder builder) {
        return builder.header("hasleader", "true");
    }

    /** A builder over {@code client}, which stays the caller's. The registry never closes it. */
    public static Builder builder(Client client) {
        return new Builder(client);
    }

    /** The etcd key prefix under which this registry keeps its locks. */
    public String namespace() {
        return namespace;
    }

    /** Builds an {@link EtcdLockRegistry}. */
    public static final class Builder extends RegistryBuilder<Builder, EtcdLockRegistry> {

        private final Client client;
        private String namespace = EtcdKeys.DEFAULT_NAMESPACE;
        private String address = "the endpoints of the given jetcd Client";
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;

        private Builder(Client client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /**
         * The etcd key prefix of all locks, {@code /distlock/} by default. A missing trailing
         * {@code /} is added.
         *
         * @throws IllegalArgumentException when {@code namespace} is null or blank
         */
        public Builder namespace(String namespace) {
            this.namespace = new EtcdKeys(namespace).namespace();
            return this;
        }

        /** Where etcd is, for error messages (the client does not tell), e.g. its endpoints joined by commas. */
        public Builder address(String address) {
            this.address = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * The longest one etcd request may take (default 5s). An acquisition's requests also end
         * with its wait time plus a slack of 200 ms.
         */
        public Builder requestTimeout(Duration requestTimeout) {
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            if (requestTimeout.isNegative() || requestTimeout.isZero()) {
                throw new IllegalArgumentException("requestTimeout must be positive, was " + requestTimeout);
            }
            this.requestTimeout = requestTimeout;
            return this;
        }

        @Override
        public EtcdLockRegistry build() {
            EtcdRequests requests =
                    new EtcdRequests(address, requestTimeout, options().answerBudget());
            QueueContext etcd = new QueueContext(
                    client, new EtcdKeys(namespace), requests, options().leaseTime());
            return new EtcdLockRegistry(
                    new EtcdLockBackend(etcd), EtcdReadWriteBackend.locks(etcd, options()), options());
        }
    }
}
