package dev.distlock.zookeeper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The key nodes used most recently, at most a fixed number of them. They hint that a key's node exists, so an attempt
 * need not send its creation. The server may have removed one since (empty containers go), and the attempt then creates
 * it after all.
 */
final class RecentKeys {

    private final Map<String, Boolean> keys;

    RecentKeys(int capacity) {
        this.keys = new LinkedHashMap<>(capacity * 4 / 3 + 1, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized boolean contains(String keyPath) {
        return keys.get(keyPath) != null;
    }

    synchronized void add(String keyPath) {
        keys.put(keyPath, Boolean.TRUE);
    }
}
