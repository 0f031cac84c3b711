package dev.distlock.spring;

import java.util.Locale;

/** The lock backends the starter configures, the values of {@code distributed-lock.backend}. */
public enum LockBackendType {

    /** Redis (lock-redis) over the application's RedisConnectionFactory, or Redlock. */
    REDIS,

    /** ZooKeeper (lock-zookeeper), with sequential nodes that live as long as the session. */
    ZOOKEEPER,

    /** etcd (lock-etcd), with keys bound to etcd leases. */
    ETCD,

    /** A lock table in the application's database (lock-jdbc). */
    JDBC,

    /** In-memory locks, within this JVM only (lock-core). */
    MEMORY;

    /** The value of {@code distributed-lock.backend}, and of {@link dev.distlock.core.LockRegistry#backend()}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return id();
    }
}
