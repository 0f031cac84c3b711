package dev.distlock.redis;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.core.spi.ReadWriteLocks;
import dev.distlock.core.spi.RegistryBuilder;
import java.time.Duration;
import java.util.Objects;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Locks on one Redis server or a Redis Cluster, over the application's {@link RedisConnectionFactory}. Closing the
 * registry releases its locks and its one pub/sub subscription. The connection factory stays open.
 */
public final class RedisLockRegistry extends LockRegistrySupport {

    /** Read/write locks are kept apart from {@link #obtain} locks of the same key. */
    private RedisLockRegistry(RedisLockBackend backend, ReadWriteLocks readWriteLocks, RegistryOptions options) {
        super(backend, readWriteLocks, options);
    }

    /** A builder over {@code connectionFactory}, which the registry uses and never closes. */
    public static Builder builder(RedisConnectionFactory connectionFactory) {
        return new Builder(connectionFactory);
    }

    /** Builds a {@link RedisLockRegistry}. */
    public static final class Builder extends RegistryBuilder<Builder, RedisLockRegistry> {

        private final RedisConnectionFactory connectionFactory;
        private Duration commandTimeout = Duration.ofSeconds(2);
        private Duration recheck = RedisLockBackend.RECHECK;
        private ReplicaAcknowledgements replicas = ReplicaAcknowledgements.NONE;

        private Builder(RedisConnectionFactory connectionFactory) {
            this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
        }

        /**
         * How long one call to Redis may go unanswered before the lock operation fails with a {@code
         * LockBackendException}. Only for Lettuce, as other clients use their own timeout. Default 2 s.
         */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = positive(commandTimeout, "commandTimeout");
            return this;
        }

        /**
         * Makes each grant wait until {@code replicas} replicas acknowledged it ({@code WAIT}), at most {@code
         * timeout}, so that a failover to one of them keeps it. A grant not acknowledged in time is released, and the
         * acquisition goes on as after a transient failure. Only for Lettuce on one server with replicas. Default 0, no
         * wait.
         */
        public Builder replicaAcknowledgements(int replicas, Duration timeout) {
            if (replicas < 0) {
                throw new IllegalArgumentException("the number of replicas must be 0 or more");
            }
            this.replicas = new ReplicaAcknowledgements(replicas, positive(timeout, "timeout"));
            return this;
        }

        /** How long a waiter sleeps at most before it looks at the key again without a release message. */
        Builder recheck(Duration recheck) {
            this.recheck = positive(recheck, "recheck");
            return this;
        }

        @Override
        public RedisLockRegistry build() {
            if (replicas.count() > 0
                    && !(connectionFactory instanceof LettuceConnectionFactory lettuce && !lettuce.isClusterAware())) {
                throw new IllegalStateException("Replica acknowledgements need a Lettuce connection factory for one"
                        + " Redis server (not a Cluster); set replicaAcknowledgements to 0 for "
                        + RedisAddress.describe(connectionFactory));
            }
            RedisEndpoint endpoint = new RedisEndpoint(connectionFactory, false);
            endpoint.awaitReady(System.nanoTime() + commandTimeout.toNanos());
            ReleaseSubscriber subscriber = new ReleaseSubscriber(connectionFactory);
            CallLimits limits = new CallLimits(commandTimeout, options().answerBudget());
            return new RedisLockRegistry(
                    new RedisLockBackend(endpoint, subscriber, limits, recheck, replicas),
                    RedisReadWriteBackend.locks(endpoint, subscriber, limits, options()),
                    options());
        }
    }

    static Duration positive(Duration value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
        return value;
    }
}
