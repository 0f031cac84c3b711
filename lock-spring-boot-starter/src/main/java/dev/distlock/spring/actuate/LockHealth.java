package dev.distlock.spring.actuate;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The lock registries' health, independent of Boot's health API. Each backend proves it is reachable with one cheap
 * call bounded by the timeout. A lost lease does not make the application DOWN, since fencing refuses its writes.
 */
final class LockHealth {

    private final Map<String, LockRegistry> registries;
    private final LockStatistics statistics;
    private final Duration timeout;

    LockHealth(Map<String, LockRegistry> registries, LockStatistics statistics, Duration timeout) {
        this.registries = new TreeMap<>(registries);
        this.statistics = statistics;
        this.timeout = timeout;
    }

    /** UP when every registry's backend answered. Details are per registry when there are several. */
    Report check() {
        boolean up = true;
        Map<String, Object> byRegistry = new LinkedHashMap<>();
        for (Map.Entry<String, LockRegistry> entry : registries.entrySet()) {
            LockRegistry registry = entry.getValue();
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("backend", registry.backend());
            details.put("holds", registry.holds().size());
            details.put("leaseLosses", statistics.leaseLosses(registry));
            try {
                registry.verify(timeout);
            } catch (LockBackendException e) {
                up = false;
                details.put("address", e.address());
                details.put("error", e.getMessage());
            } catch (RuntimeException e) {
                up = false;
                details.put("error", e.getMessage());
            }
            byRegistry.put(entry.getKey(), details);
        }
        if (byRegistry.size() == 1) {
            @SuppressWarnings("unchecked")
            Map<String, Object> only =
                    (Map<String, Object>) byRegistry.values().iterator().next();
            return new Report(up, only);
        }
        return new Report(up, byRegistry);
    }

    record Report(boolean up, Map<String, Object> details) {}
}
