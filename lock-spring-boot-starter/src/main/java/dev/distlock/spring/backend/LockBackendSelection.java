package dev.distlock.spring.backend;

import dev.distlock.spring.DistributedLockProperties;
import dev.distlock.spring.LockBackendType;
import dev.distlock.spring.LockStartupException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Which backend the starter configures. It is the one {@code distributed-lock.backend} names, else the one backend
 * module on the classpath, else the in-memory backend.
 *
 * @param backend the chosen backend, or null
 * @param problem why none was chosen, or null
 * @param action what to change when none was chosen, or null
 */
record LockBackendSelection(LockBackendType backend, String problem, String action) {

    static final String PROPERTY = DistributedLockProperties.PREFIX + ".backend";

    static LockBackendSelection select(Environment environment, ClassLoader classLoader) {
        return select(environment.getProperty(PROPERTY), name -> ClassUtils.isPresent(name, classLoader));
    }

    /**
     * @param configured the value of {@code distributed-lock.backend}, possibly null or blank
     * @param classPresent whether a class of the given name can be loaded
     */
    static LockBackendSelection select(String configured, Predicate<String> classPresent) {
        if (configured != null && !configured.isBlank()) {
            return selectConfigured(configured.trim(), classPresent);
        }
        List<LockBackendType> present = Arrays.stream(LockBackendType.values())
                .filter(BackendModules::isModule)
                .filter(type -> classPresent.test(BackendModules.registryClass(type)))
                .toList();
        if (present.isEmpty()) {
            return chosen(LockBackendType.MEMORY);
        }
        if (present.size() == 1) {
            return chosen(present.get(0));
        }
        String ids = present.stream().map(LockBackendType::id).collect(Collectors.joining(", "));
        String artifacts = present.stream().map(BackendModules::artifactId).collect(Collectors.joining(", "));
        return failed(
                "Several lock backends are on the classpath (" + artifacts + ") and " + PROPERTY + " is not set.",
                "Set " + PROPERTY + " to one of: " + ids + ", " + LockBackendType.MEMORY.id() + ".");
    }

    private static LockBackendSelection selectConfigured(String value, Predicate<String> classPresent) {
        LockBackendType type = BackendModules.fromId(value);
        if (type == null) {
            return failed(
                    PROPERTY + "=" + value + " is not a lock backend.",
                    "Set " + PROPERTY + " to one of: " + BackendModules.ids() + ".");
        }
        if (!BackendModules.isModule(type) || classPresent.test(BackendModules.registryClass(type))) {
            return chosen(type);
        }
        return failed(
                PROPERTY + "=" + type.id() + " but " + BackendModules.registryClass(type)
                        + " is not on the classpath (or cannot" + " be loaded).",
                "Add the dependency dev.distlock:" + BackendModules.artifactId(type)
                        + " (import dev.distlock:distlock-bom so that"
                        + " every distlock module has the same version), or set " + PROPERTY + " to another backend.");
    }

    private static LockBackendSelection chosen(LockBackendType type) {
        return new LockBackendSelection(type, null, null);
    }

    private static LockBackendSelection failed(String problem, String action) {
        return new LockBackendSelection(null, problem, action);
    }

    boolean selected(LockBackendType type) {
        return type == backend;
    }

    /** The failure to report when no backend could be chosen. */
    LockStartupException failure() {
        return new LockStartupException(problem, action);
    }
}
