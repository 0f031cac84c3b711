package dev.distlock.fencing.redis;

import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FenceMismatchException;
import dev.distlock.core.fencing.FenceRule;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Fences kept in Redis, each checked and raised by one script, so every instance of a service sees
 * the same fence. Besides the {@link FenceStore} operations it writes and reads values kept in Redis
 * under their fence: {@link #set} stores a value only for an admitted token, in the same script, and
 * {@link #getForWrite} raises the fence before it reads, for a read-modify-write that a paused
 * earlier holder cannot overtake.
 *
 * <p>A resource's fence is the hash {@code <prefix>{<resource>}} (fields {@code backend}, {@code
 * lock}, {@code token}). The braces put it in the hash slot of the key named like the resource, so
 * on a Redis Cluster a fenced value and its fence share a hash slot. A resource name that carries a hash tag
 * of its own keeps it ({@code <prefix><resource>}).
 */
public final class RedisFenceStore implements FenceStore {

    /** The default prefix of fence keys. */
    public static final String DEFAULT_PREFIX = "distlock:fence:";

    private final StringRedisTemplate redis;
    private final String prefix;

    private RedisFenceStore(Builder builder) {
        this.redis = new StringRedisTemplate(builder.connectionFactory);
        this.prefix = builder.prefix;
    }

    /** A store on the application's Redis connection factory. */
    public static Builder builder(RedisConnectionFactory connectionFactory) {
        return new Builder(Objects.requireNonNull(connectionFactory, "connectionFactory"));
    }

    /** A store on the connection factory of one of the application's templates. */
    public static Builder builder(RedisTemplate<?, ?> template) {
        return builder(Objects.requireNonNull(
                template.getConnectionFactory(), "the RedisTemplate has no connection factory yet"));
    }

    @Override
    public Fence admitWrite(String resource, FencingClaim claim) {
        return outcome(resource, claim, run(FenceScripts.ADMIT, resource, claim, "write"));
    }

    @Override
    public void admitRead(String resource, FencingClaim claim) {
        outcome(resource, claim, run(FenceScripts.ADMIT, resource, claim, "read"));
    }

    @Override
    public Optional<Fence> fenceOf(String resource) {
        List<String> fields = redis.execute(FenceScripts.FENCE_OF, List.of(fenceKey(resource)));
        return fields == null || fields.isEmpty()
                ? Optional.empty()
                : Optional.of(fence(resource, fields.get(0), fields.get(1), fields.get(2)));
    }

    @Override
    public Fence rebind(String resource, FencingClaim claim) {
        return outcome(resource, claim, run(FenceScripts.REBIND, resource, claim));
    }

    /**
     * Stores {@code value} at {@code key} when {@code claim} is admitted as a writer of the resource
     * named like the key, in one step with raising its fence. Stores nothing otherwise.
     *
     * @throws StaleTokenException when a newer holder already registered with the key
     * @throws FenceMismatchException when another lock key or backend guards the key
     */
    public Fence set(String key, FencingClaim claim, String value) {
        Objects.requireNonNull(value, "value");
        return outcome(key, claim, runOnValue(FenceScripts.SET, key, claim, value));
    }

    /**
     * Admits {@code claim} as a writer of {@code key} (raising its fence), then reads the value. The
     * read of a read-modify-write, after which no earlier holder can write the key.
     *
     * @return the value, or empty when the key has none
     * @throws StaleTokenException when a newer holder already registered with the key
     * @throws FenceMismatchException when another lock key or backend guards the key
     */
    public Optional<String> getForWrite(String key, FencingClaim claim) {
        List<String> result = runOnValue(FenceScripts.GET, key, claim);
        outcome(key, claim, result);
        return result.size() > 4 ? Optional.of(result.get(4)) : Optional.empty();
    }

    /** The key that holds {@code resource}'s fence. */
    public String fenceKey(String resource) {
        FenceRule.checkResource(resource);
        return hasHashTag(resource) ? prefix + resource : prefix + "{" + resource + "}";
    }

    /** Runs {@code script} on {@code resource}'s fence for {@code claim}. */
    private List<String> run(RedisScript<List<String>> script, String resource, FencingClaim claim, String... more) {
        Objects.requireNonNull(claim, "claim");
        return execute(script, resource, List.of(fenceKey(resource)), claim, more);
    }

    /** Runs {@code script} on the fence of the resource named like {@code key}, and on the value at {@code key}. */
    private List<String> runOnValue(RedisScript<List<String>> script, String key, FencingClaim claim, String... more) {
        Objects.requireNonNull(claim, "claim");
        return execute(script, key, List.of(fenceKey(key), key), claim, more);
    }

    private List<String> execute(
            RedisScript<List<String>> script, String resource, List<String> keys, FencingClaim claim, String... more) {
        Object[] args = new Object[3 + more.length];
        args[0] = claim.backend();
        args[1] = claim.lockKey();
        args[2] = Long.toString(claim.token().value());
        System.arraycopy(more, 0, args, 3, more.length);
        List<String> result = redis.execute(script, keys, args);
        if (result == null || result.size() < 4) {
            throw new IllegalStateException("The fence script for resource '" + resource + "' answered " + result
                    + "; is the Redis server 2.6 or later and the key '" + fenceKey(resource) + "' a hash?");
        }
        return result;
    }

    private Fence outcome(String resource, FencingClaim claim, List<String> result) {
        Fence fence = fence(resource, result.get(1), result.get(2), result.get(3));
        return switch (result.get(0)) {
            case "ok", "none" -> fence;
            case "stale" -> throw new StaleTokenException(resource, claim.lockKey(), claim.token(), fence.highest());
            case "mismatch" -> throw new FenceMismatchException(fence, claim);
            default ->
                throw new IllegalStateException("The fence script for resource '" + resource + "' answered " + result);
        };
    }

    private static Fence fence(String resource, String backend, String lock, String token) {
        return new Fence(resource, backend, lock, FencingToken.of(Long.parseLong(token)));
    }

    // Redis Cluster hashes only the text between the first '{' and the next '}' when it is not empty.
    private static boolean hasHashTag(String key) {
        int open = key.indexOf('{');
        int close = open < 0 ? -1 : key.indexOf('}', open + 1);
        return close > open + 1;
    }

    /** Options of a {@link RedisFenceStore}. */
    public static final class Builder {

        private final RedisConnectionFactory connectionFactory;
        private String prefix = DEFAULT_PREFIX;

        private Builder(RedisConnectionFactory connectionFactory) {
            this.connectionFactory = connectionFactory;
        }

        /** The prefix of fence keys; {@value RedisFenceStore#DEFAULT_PREFIX} by default. */
        public Builder keyPrefix(String prefix) {
            if (prefix == null || prefix.contains("{") || prefix.contains("}")) {
                throw new IllegalArgumentException(
                        "The fence key prefix must not be null or contain braces (they would change the Redis"
                                + " Cluster hash slot), was '" + prefix + "'");
            }
            this.prefix = prefix;
            return this;
        }

        public RedisFenceStore build() {
            return new RedisFenceStore(this);
        }
    }
}
