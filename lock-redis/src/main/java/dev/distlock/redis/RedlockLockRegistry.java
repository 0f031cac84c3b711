package dev.distlock.redis;

import static dev.distlock.redis.RedisLockRegistry.positive;

import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.core.spi.RegistryBuilder;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Redlock, locks held on a majority of N independent Redis servers, so that a minority of them may fail. Read the
 * README's Redlock section before choosing it. The fencing token, not the lock, protects a resource when clocks jump or
 * a node restarts without persistence. Closing the registry closes the connections it opened from {@link
 * Builder#nodeUris}, never factories passed to {@link Builder#nodes}.
 */
public final class RedlockLockRegistry extends LockRegistrySupport {

    private RedlockLockRegistry(RedlockBackend backend, RegistryOptions options) {
        super(backend, options);
    }

    /**
     * Not offered on Redlock. A read/write lock's state (its readers, its waiting writers and the fence that read
     * tokens report) would be spread over independent nodes with no order between them. A reader and a writer could
     * each see a majority that lets them in while nodes restart or clocks jump. Use {@link RedisLockRegistry} (one
     * server, replicas or a Cluster) for read/write locks.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public FencedReadWriteLock readWriteLock(String key) {
        throw new UnsupportedOperationException("Read/write lock '" + key + "' is not offered on Redlock: readers,"
                + " waiting writers and the write epoch would be spread over independent nodes with nothing to order"
                + " them. Use RedisLockRegistry (one server, replicas or a Cluster) for read/write locks.");
    }

    /** A builder, to be given either {@link Builder#nodes} or {@link Builder#nodeUris}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link RedlockLockRegistry} from either {@link #nodes} or {@link #nodeUris}. */
    public static final class Builder extends RegistryBuilder<Builder, RedlockLockRegistry> {

        private List<RedisConnectionFactory> nodes = List.of();
        private List<String> nodeUris = List.of();
        private Duration nodeTimeout = Duration.ofMillis(200);
        private Duration commandTimeout = Duration.ofSeconds(2);

        private Builder() {}

        /**
         * Connection factories of independent Redis servers, not replicas of one another. The registry leaves them
         * open.
         */
        public Builder nodes(List<RedisConnectionFactory> nodes) {
            this.nodes = List.copyOf(Objects.requireNonNull(nodes, "nodes"));
            return this;
        }

        /**
         * {@code redis://[[user]:password@]host:port[/database]} of independent servers. The registry opens and closes
         * them.
         */
        public Builder nodeUris(List<String> nodeUris) {
            this.nodeUris = List.copyOf(Objects.requireNonNull(nodeUris, "nodeUris"));
            return this;
        }

        /**
         * How long one acquisition round waits for the nodes' answers. A node slower than this counts as not granting.
         * Keep it far below the lease. Default 200 ms.
         */
        public Builder nodeTimeout(Duration nodeTimeout) {
            this.nodeTimeout = positive(nodeTimeout, "nodeTimeout");
            return this;
        }

        /** How long renewals and releases wait for the nodes. Default 2s. */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = positive(commandTimeout, "commandTimeout");
            return this;
        }

        @Override
        public RedlockLockRegistry build() {
            if (nodes.isEmpty() == nodeUris.isEmpty()) {
                throw new IllegalArgumentException("Redlock needs either nodes(...) or nodeUris(...), not "
                        + (nodes.isEmpty() ? "neither" : "both"));
            }
            int count = Math.max(nodes.size(), nodeUris.size());
            if (count < 3) {
                throw new IllegalArgumentException("Redlock needs at least 3 independent Redis nodes (5 is usual), got "
                        + count + ". List more nodes, or use a single server with RedisLockRegistry.");
            }
            List<RedisEndpoint> redisNodes = new ArrayList<>();
            try {
                nodes.forEach(factory -> redisNodes.add(new RedisEndpoint(factory, false)));
                for (String uri : nodeUris) {
                    redisNodes.add(new RedisEndpoint(open(uri), true));
                }
            } catch (RuntimeException e) {
                redisNodes.forEach(RedisEndpoint::close);
                throw e;
            }
            long ready = System.nanoTime() + commandTimeout.toNanos();
            redisNodes.forEach(node -> node.awaitReady(ready));
            return new RedlockLockRegistry(new RedlockBackend(redisNodes, nodeTimeout, commandTimeout), options());
        }

        private LettuceConnectionFactory open(String uri) {
            URI parsed;
            try {
                parsed = URI.create(uri);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "Redlock node '" + uri + "' is not a redis://host:port URI: " + e.getMessage(), e);
            }
            boolean ssl = "rediss".equals(parsed.getScheme());
            if (!("redis".equals(parsed.getScheme()) || ssl) || parsed.getHost() == null) {
                throw new IllegalArgumentException("Redlock node '" + uri + "' is not a redis://host:port URI");
            }
            RedisStandaloneConfiguration server =
                    new RedisStandaloneConfiguration(parsed.getHost(), parsed.getPort() > 0 ? parsed.getPort() : 6379);
            String path = parsed.getPath();
            if (path != null && path.length() > 1) {
                server.setDatabase(Integer.parseInt(path.substring(1)));
            }
            String userInfo = parsed.getUserInfo();
            if (userInfo != null) {
                int colon = userInfo.indexOf(':');
                String user = colon < 0 ? null : userInfo.substring(0, colon);
                if (user != null && !user.isEmpty()) {
                    server.setUsername(user);
                }
                server.setPassword(RedisPassword.of(colon < 0 ? userInfo : userInfo.substring(colon + 1)));
            }
            // A node that is down must fail at once, not queue commands until it returns.
            ClientOptions clientOptions = ClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .socketOptions(SocketOptions.builder()
                            .connectTimeout(Duration.ofSeconds(1))
                            .build())
                    .build();
            LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
                    .commandTimeout(commandTimeout)
                    .clientOptions(clientOptions);
            if (ssl) {
                client.useSsl();
            }
            LettuceConnectionFactory factory = new LettuceConnectionFactory(server, client.build());
            factory.afterPropertiesSet();
            factory.start();
            return factory;
        }
    }
}
