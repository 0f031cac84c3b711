package dev.distlock.spring;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The lock backends the starter configures, the values of {@code distributed-lock.backend}. The
 * one place where backends are named: their property value, the class that shows the backend
 * module is on the classpath, and the artifact to add.
 */
public enum LockBackendType {

    /** Redis (lock-redis) over the application's RedisConnectionFactory, or Redlock. */
    REDIS(
            "dev.distlock.redis.RedisLockRegistry",
            "lock-redis",
            "Check that Redis runs and is reachable there, and that spring.data.redis.* (host, port, username,"
                    + " password, ssl) describe it; for Redlock, check distributed-lock.redis.redlock-nodes."),

    /** ZooKeeper (lock-zookeeper): sequential nodes that live as long as the session. */
    ZOOKEEPER(
            "dev.distlock.zookeeper.ZooKeeperLockRegistry",
            "lock-zookeeper",
            "Check that ZooKeeper runs and is reachable there, and distributed-lock.zookeeper.connect-string (or"
                    + " the connect string, ACLs and auth of your CuratorFramework bean)."),

    /** etcd (lock-etcd): keys bound to etcd leases. */
    ETCD(
            "dev.distlock.etcd.EtcdLockRegistry",
            "lock-etcd",
            "Check that etcd runs and is reachable there, and distributed-lock.etcd.endpoints, username, password"
                    + " and tls.* (or your jetcd Client bean)."),

    /** A lock table in the application's database (lock-jdbc). */
    JDBC(
            "dev.distlock.jdbc.JdbcLockRegistry",
            "lock-jdbc",
            "Check that the database runs and spring.datasource.* (url, username, password) reach it. A missing"
                    + " lock table is created when distributed-lock.jdbc.initialize-schema=always (the default);"
                    + " otherwise create it with the DDL shown, and distributed-lock.jdbc.table-name must name it."),

    /** In-memory locks, within this JVM only (lock-core). */
    MEMORY("dev.distlock.core.memory.MemoryLockRegistry", "lock-core", "");

    private final String registryClass;
    private final String artifactId;
    private final String connectionAction;

    LockBackendType(String registryClass, String artifactId, String connectionAction) {
        this.registryClass = registryClass;
        this.artifactId = artifactId;
        this.connectionAction = connectionAction;
    }

    /** What to check when the backend cannot be reached or used, naming the properties that configure it. */
    String connectionAction() {
        return connectionAction;
    }

    /** The value of {@code distributed-lock.backend}, and of {@link dev.distlock.core.LockRegistry#backend()}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** A class of the backend's module; its presence shows the module is on the classpath. */
    String registryClass() {
        return registryClass;
    }

    /** The module's artifact id (group {@code dev.distlock}). */
    String artifactId() {
        return artifactId;
    }

    /** True for the backends that live in a module of their own (all but memory). */
    boolean isModule() {
        return this != MEMORY;
    }

    /** The backend with this id, e.g. {@code "redis"}, ignoring case and surrounding blanks; null when none. */
    static LockBackendType fromId(String id) {
        String wanted = id.trim();
        return Arrays.stream(values())
                .filter(type -> type.name().equalsIgnoreCase(wanted))
                .findFirst()
                .orElse(null);
    }

    /** All ids, comma-separated, for messages. */
    static String ids() {
        return Arrays.stream(values()).map(LockBackendType::id).collect(Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return id();
    }
}
