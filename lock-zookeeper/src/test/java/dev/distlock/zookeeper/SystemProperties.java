package dev.distlock.zookeeper;

import java.util.HashMap;
import java.util.Map;

/**
 * System properties that an in-process ZooKeeper server reads when it starts, set for one test
 * class and put back as they were afterwards.
 */
final class SystemProperties {

    private final Map<String, String> previous = new HashMap<>();

    /** Sets {@code properties}, remembering what each was before. */
    void set(Map<String, String> properties) {
        properties.forEach((name, value) -> previous.put(name, System.setProperty(name, value)));
    }

    /** Puts back every property {@link #set} changed. */
    void restore() {
        previous.forEach((name, value) -> {
            if (value == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, value);
            }
        });
        previous.clear();
    }
}
