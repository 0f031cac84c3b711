package dev.distlock.redis;

import java.nio.charset.StandardCharsets;

/**
 * A lock key and the name of its Redis key, encoded once. The key is wrapped in a hash tag.
 * Braces and percent signs in it are percent-encoded, so it can neither end the tag early nor
 * collide with another key.
 *
 * @param key the full lock key (registry prefix included), for messages
 * @param name the Redis key of the lock, {@code distlock:{<key>}}
 * @param nameBytes {@code name} in UTF-8
 * @param queueBytes the Redis key of the lock's queue of waiting registries, {@code distlock:{<key>}:q}, in UTF-8, in
 *     the same hash tag and so the same Cluster hash slot
 */
record LockKey(String key, String name, byte[] nameBytes, byte[] queueBytes) {

    static final String NAMESPACE = "distlock:";

    /**
     * The channel every registry hears. Read/write releases publish on it, and plain releases when nobody is in the
     * key's queue. The message is the lock's Redis key.
     */
    static final String RELEASE_CHANNEL = NAMESPACE + "released";

    /** The start of each registry's own wake-up channel, on which a plain release wakes the next in the queue. */
    static final String WAKE_CHANNEL_PREFIX = NAMESPACE + "wake:";

    static LockKey of(String fullKey) {
        return new LockKey(fullKey, NAMESPACE + "{" + escape(fullKey) + "}");
    }

    /**
     * The lock whose Redis key is {@code redisKey}, as a release message names it. Its full key is not known, so
     * messages about it name the Redis key.
     */
    static LockKey ofRedisKey(String redisKey) {
        return new LockKey(redisKey, redisKey);
    }

    private LockKey(String key, String name) {
        this(key, name, name.getBytes(StandardCharsets.UTF_8), (name + ":q").getBytes(StandardCharsets.UTF_8));
    }

    /** Whether {@code redisKey}, as a release message names it, is a plain lock's key {@code distlock:{<key>}}. */
    static boolean isPlainLock(String redisKey) {
        return redisKey.startsWith(NAMESPACE + "{") && redisKey.endsWith("}");
    }

    static String escape(String key) {
        if (key.indexOf('{') < 0 && key.indexOf('}') < 0 && key.indexOf('%') < 0) {
            return key;
        }
        StringBuilder escaped = new StringBuilder(key.length() + 8);
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            switch (c) {
                case '%' -> escaped.append("%25");
                case '{' -> escaped.append("%7B");
                case '}' -> escaped.append("%7D");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }
}
