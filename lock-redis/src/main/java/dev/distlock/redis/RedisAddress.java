package dev.distlock.redis;

import java.util.stream.Collectors;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode.NodeType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Where a connection factory points, for messages. */
final class RedisAddress {

    private RedisAddress() {}

    static String describe(RedisConnectionFactory factory) {
        if (factory instanceof LettuceConnectionFactory lettuce) {
            if (lettuce.isClusterAware()) {
                return "cluster "
                        + lettuce.getClusterConfiguration().getClusterNodes().stream()
                                .filter(node -> node.getType() != NodeType.REPLICA)
                                .map(node -> node.getHost() + ":" + node.getPort())
                                .collect(Collectors.joining(","));
            }
            return lettuce.getHostName() + ":" + lettuce.getPort();
        }
        return factory.getClass().getSimpleName();
    }
}
