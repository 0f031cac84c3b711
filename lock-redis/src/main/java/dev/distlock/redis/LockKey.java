package dev.distlock.redis;

import java.nio.charset.StandardCharsets;

/**
 * A lock key and the name of its Redis key, encoded once. The key is wrapped in a hash tag;
 * braces and percent signs in it are percent-encoded, so it can neither end the tag early nor
 * collide with another key.
 *
 * @param key the full lock key (registry prefix included), for messages
 * @param name the Redis key of the lock, {@code distlock:{<key>}}
 * @param nameBytes {@code name} in UTF-8
 */
record LockKey(String key, String name, byte[] nameBytes) {

    static final String NAMESPACE = "distlock:";

    /** The channel a release publishes on when a waiter asked for it; the message is the lock's Redis key. */
    static final String RELEASE_CHANNEL = NAMESPACE + "released";

    static LockKey of(String fullKey) {
        String name = NAMESPACE + "{" + escape(fullKey) + "}";
        return new LockKey(fullKey, name, name.getBytes(StandardCharsets.UTF_8));
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
