package dev.distlock.spring.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code lock.name} tag of a key, the part before its first {@code ':'} (the annotation's name). Names past
 * {@code distributed-lock.metrics.max-lock-names} become {@value #OTHER}, so the number of meters stays bounded.
 */
public final class LockNames {

    /** The lock name of every name past the limit. */
    public static final String OTHER = "other";

    private static final Logger log = LoggerFactory.getLogger(LockNames.class);

    private final int maxNames;
    private final Set<String> names = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean warned = new AtomicBoolean();

    public LockNames(int maxNames) {
        if (maxNames < 1) {
            throw new IllegalArgumentException("maxNames must be at least 1, was " + maxNames);
        }
        this.maxNames = maxNames;
    }

    /** The lock name of {@code key} (a key as the caller named it, without the registry's key prefix). */
    public String of(String key) {
        if (key == null || key.isEmpty()) {
            return "none";
        }
        int colon = key.indexOf(':');
        String name = colon < 0 ? key : key.substring(0, colon);
        if (names.contains(name)) {
            return name;
        }
        if (names.size() >= maxNames) {
            if (warned.compareAndSet(false, true)) {
                log.warn(
                        "More than {} lock names (the part of a key before its first ':'); lock '{}' and later new"
                                + " names are tagged lock.name={}. Give keys a bounded name before a ':' (e.g."
                                + " \"order:\" + id), or raise distributed-lock.metrics.max-lock-names.",
                        maxNames,
                        name,
                        OTHER);
            }
            return OTHER;
        }
        names.add(name);
        return name;
    }
}
