package dev.distlock.redis;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.rw.ReadWriteLocks;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.core.spi.RegistryBuilder;
import java.time.Duration;
import java.util.Objects;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Locks on one Redis server or a Redis Cluster, over the application's {@link
 * RedisConnectionFactory}. Closing the registry releases its locks and its one pub/sub
 * subscription; the connection factory stays open.
 */
public final class RedisLockRegistry extends LockRegistrySupport {

    /** Read/write locks are kept apart from {@link #obtain} locks of the same key. */
    private RedisLockRegistry(RedisLockBackend backend, ReadWriteLocks readWriteLocks, RegistryOptions options) {
        super(backend, readWriteLocks, options);
    }

    public static Builder builder(RedisConnectionFactory connectionFactory) {
        return new Builder(connectionFactory);
    }

    /** Builds a {@link RedisLockRegistry}. */
    public static final class Builder extends RegistryBuilder<Builder, RedisLockRegistry> {

        private final RedisConnectionFactory connectionFactory;
        private Duration commandTimeout = Duration.ofSeconds(2);

        private Builder(RedisConnectionFactory connectionFactory) {
            this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
        }

        /**
         * How long one call to Redis may go unanswered before the lock operation fails with a
         * {@code LockBackendException} (Lettuce only; other clients use their own timeout). Default 2s.
         */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = positive(commandTimeout, "commandTimeout");
            return this;
        }

        @Override
        public RedisLockRegistry build() {
            RedisEndpoint endpoint = new RedisEndpoint(connectionFactory, false);
            endpoint.awaitReady(System.nanoTime() + commandTimeout.toNanos());
            ReleaseSubscriber subscriber = new ReleaseSubscriber(connectionFactory);
            return new RedisLockRegistry(
                    new RedisLockBackend(endpoint, subscriber, commandTimeout),
                    RedisReadWriteBackend.locks(endpoint, subscriber, commandTimeout, options()),
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
