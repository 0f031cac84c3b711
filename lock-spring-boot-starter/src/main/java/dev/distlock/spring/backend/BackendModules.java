package dev.distlock.spring.backend;

import dev.distlock.spring.LockBackendType;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * What the starter knows of each {@link LockBackendType}'s module. That is the class that shows it is on the
 * classpath, the artifact to add, and what to check when the backend cannot be reached.
 */
final class BackendModules {

    private BackendModules() {}

    /** What to check when the backend cannot be reached or used, naming the properties that configure it. */
    static String connectionAction(LockBackendType type) {
        return switch (type) {
            case REDIS ->
                "Check that Redis runs and is reachable there, and that spring.data.redis.* (host, port,"
                        + " username, password, ssl) describe it; for Redlock, check distributed-lock.redis.redlock-nodes.";
            case ZOOKEEPER ->
                "Check that ZooKeeper runs and is reachable there, and"
                        + " distributed-lock.zookeeper.connect-string (or the connect string, ACLs and auth of your"
                        + " CuratorFramework bean).";
            case ETCD ->
                "Check that etcd runs and is reachable there, and distributed-lock.etcd.endpoints, username,"
                        + " password and tls.* (or your jetcd Client bean).";
            case JDBC ->
                "Check that the database runs and spring.datasource.* (url, username, password) reach it. A"
                        + " missing lock table is created when distributed-lock.jdbc.initialize-schema=always (the"
                        + " default); otherwise create it with the DDL shown, and distributed-lock.jdbc.table-name must"
                        + " name it.";
            case MEMORY -> "";
        };
    }

    /** A class of the backend's module, whose presence shows the module is on the classpath. */
    static String registryClass(LockBackendType type) {
        return switch (type) {
            case REDIS -> "dev.distlock.redis.RedisLockRegistry";
            case ZOOKEEPER -> "dev.distlock.zookeeper.ZooKeeperLockRegistry";
            case ETCD -> "dev.distlock.etcd.EtcdLockRegistry";
            case JDBC -> "dev.distlock.jdbc.JdbcLockRegistry";
            case MEMORY -> "dev.distlock.core.memory.MemoryLockRegistry";
        };
    }

    /** The module's artifact id (group {@code dev.distlock}). */
    static String artifactId(LockBackendType type) {
        return type == LockBackendType.MEMORY ? "lock-core" : "lock-" + type.id();
    }

    /** True for the backends that live in a module of their own (all but memory). */
    static boolean isModule(LockBackendType type) {
        return type != LockBackendType.MEMORY;
    }

    /** The backend with this id (e.g. {@code "redis"}), ignoring case and surrounding blanks. Null when none. */
    static LockBackendType fromId(String id) {
        String wanted = id.trim();
        return Arrays.stream(LockBackendType.values())
                .filter(type -> type.name().equalsIgnoreCase(wanted))
                .findFirst()
                .orElse(null);
    }

    /** All ids, comma-separated, for messages. */
    static String ids() {
        return Arrays.stream(LockBackendType.values()).map(LockBackendType::id).collect(Collectors.joining(", "));
    }
}
