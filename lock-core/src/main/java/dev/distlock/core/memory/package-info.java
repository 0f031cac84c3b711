/**
 * The in-memory backend: {@link dev.distlock.core.memory.MemoryLockRegistry} gives locks within one
 * JVM with the same semantics as the distributed backends (leases, lease keeping, fencing tokens),
 * for single-instance applications and tests. Registries built over one {@link
 * dev.distlock.core.memory.MemoryLockStore} behave like separate JVMs sharing a server. Like every
 * backend, it sees the API and the SPI only.
 */
package dev.distlock.core.memory;
