package dev.distlock.spring.metrics;

import io.micrometer.observation.Observation;
import java.lang.reflect.Method;

/**
 * What the observations of a {@code @DistributedLock} method know. That is the method, and once the lock was asked
 * for, its key, {@link LockNames lock name} and backend.
 */
public abstract class LockObservationContext extends Observation.Context {

    /** Lock name and backend before the registry reported them (no acquisition reached it). */
    public static final String UNKNOWN = "unknown";

    private final Method method;
    private String key;
    private String lockName = UNKNOWN;
    private String backend = UNKNOWN;

    protected LockObservationContext(Method method) {
        this.method = method;
    }

    /** The {@code @DistributedLock} method. */
    public Method getMethod() {
        return method;
    }

    /** The lock key ({@code name + ":" + key}), or null when not known. High cardinality, for traces only. */
    public String getKey() {
        return key;
    }

    /** The bounded lock name (see {@link LockNames}). */
    public String getLockName() {
        return lockName;
    }

    /** The backend's name, one of redis, zookeeper, etcd, jdbc or memory. */
    public String getBackend() {
        return backend;
    }

    void setLock(String backend, String key, String lockName) {
        this.backend = backend;
        this.key = key;
        this.lockName = lockName;
    }

    void copyLock(LockObservationContext other) {
        setLock(other.backend, other.key, other.lockName);
    }
}
