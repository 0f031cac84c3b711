package dev.distlock.redis;

import java.nio.charset.StandardCharsets;

/**
 * Names of the Redis keys of one lock. The lock key is wrapped in a hash tag so that the lock
 * and its counter live in one Cluster slot; braces and percent signs in the key are
 * percent-encoded, so a key can neither end the tag early nor collide with another key.
 */
record RedisKeys(String lock, String fence) {

    static final String NAMESPACE = "distlock:";

    /** The channel a release publishes on when a waiter asked for it; the message is the lock's name. */
    static final String RELEASE_CHANNEL = NAMESPACE + "released";

    static RedisKeys of(String fullKey) {
        String lock = NAMESPACE + "{" + escape(fullKey) + "}";
        return new RedisKeys(lock, lock + ":fence");
    }

    byte[] lockBytes() {
        return lock.getBytes(StandardCharsets.UTF_8);
    }

    byte[] fenceBytes() {
        return fence.getBytes(StandardCharsets.UTF_8);
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
