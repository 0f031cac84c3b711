package dev.distlock.zookeeper;

/**
 * A lock node to create.
 *
 * @param key the key it is for
 * @param keyPath the key's node, its parent
 * @param name its name before the sequence
 * @param data what it holds (the holder's description)
 */
record NewLockNode(String key, String keyPath, String name, byte[] data) {}
