package dev.distlock.spring;

import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Which backend the starter configures: the one {@code distributed-lock.backend} names, or else
 * the one backend module on the classpath, or else the in-memory backend. When none can be
 * chosen, {@link #problem()} says why and what to set.
 *
 * @param backend the chosen backend's name, or null
 * @param problem why none was chosen, or null
 */
record LockBackendSelection(String backend, String problem) {

    static final String PROPERTY = DistributedLockProperties.PREFIX + ".backend";
    static final String MEMORY = "memory";

    /** A backend module: its name, the class that shows it is on the classpath, its artifact id. */
    record Module(String name, String registryClass, String artifactId) {}

    static final List<Module> MODULES = List.of(
            new Module("redis", "dev.distlock.redis.RedisLockRegistry", "lock-redis"),
            new Module("zookeeper", "dev.distlock.zookeeper.ZooKeeperLockRegistry", "lock-zookeeper"),
            new Module("etcd", "dev.distlock.etcd.EtcdLockRegistry", "lock-etcd"),
            new Module("jdbc", "dev.distlock.jdbc.JdbcLockRegistry", "lock-jdbc"));

    static List<String> names() {
        return Stream.concat(MODULES.stream().map(Module::name), Stream.of(MEMORY))
                .toList();
    }

    /**
     * @param configured the value of {@code distributed-lock.backend}, possibly null or blank
     * @param classPresent whether a class of the given name can be loaded
     */
    static LockBackendSelection select(String configured, Predicate<String> classPresent) {
        if (configured != null && !configured.isBlank()) {
            return selectConfigured(configured.trim().toLowerCase(Locale.ROOT), classPresent);
        }
        List<Module> present = MODULES.stream()
                .filter(m -> classPresent.test(m.registryClass()))
                .toList();
        if (present.isEmpty()) {
            return new LockBackendSelection(MEMORY, null);
        }
        if (present.size() == 1) {
            return new LockBackendSelection(present.get(0).name(), null);
        }
        String names = present.stream().map(Module::name).collect(Collectors.joining(", "));
        String artifacts = present.stream().map(Module::artifactId).collect(Collectors.joining(", "));
        return new LockBackendSelection(
                null,
                "Several lock backends are on the classpath (" + artifacts + ") and " + PROPERTY + " is not set. Set "
                        + PROPERTY + " to one of: " + names + ", " + MEMORY + ".");
    }

    private static LockBackendSelection selectConfigured(String name, Predicate<String> classPresent) {
        if (name.equals(MEMORY)) {
            return new LockBackendSelection(MEMORY, null);
        }
        for (Module module : MODULES) {
            if (module.name().equals(name)) {
                if (classPresent.test(module.registryClass())) {
                    return new LockBackendSelection(name, null);
                }
                return new LockBackendSelection(
                        null,
                        PROPERTY + "=" + name + " but " + module.registryClass() + " is not on the classpath. Add"
                                + " the dependency dev.distlock:" + module.artifactId() + ", or set " + PROPERTY
                                + " to another backend.");
            }
        }
        return new LockBackendSelection(
                null,
                PROPERTY + "=" + name + " is not a lock backend. Valid values: " + String.join(", ", names()) + ".");
    }

    boolean selected(String name) {
        return name.equals(backend);
    }
}
