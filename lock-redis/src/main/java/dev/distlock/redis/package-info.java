/**
 * The Redis backend. {@link dev.distlock.redis.RedisLockRegistry} locks on one server or a Redis Cluster, and {@link
 * dev.distlock.redis.RedlockLockRegistry} on a majority of independent servers (Redlock). Both keep the contract in
 * {@code docs/contract.md}.
 *
 * <p>A lock key {@code k} is one Redis string, {@code distlock:{k}}. Its value names the owner, the fencing token and
 * the holder, and it expires with the lease. While registries wait for the key, its queue of waiting registries lives
 * beside it, in the same hash tag. Nothing else is written per key. The Lua scripts are resources of this package,
 * loaded at start and after every reconnect, and run with EVALSHA. Keys travel as KEYS and ARGV, never inside script
 * text.
 *
 * <p>{@code docs/internals/backends.md} describes the key layout, the wake-ups, the batching of commands, the fencing
 * tokens and the time bounds.
 */
package dev.distlock.redis;
