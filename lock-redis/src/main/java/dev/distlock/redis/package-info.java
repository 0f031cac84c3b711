/**
 * Redis backend: {@link dev.distlock.redis.RedisLockRegistry} for one server or a Redis Cluster,
 * {@link dev.distlock.redis.RedlockLockRegistry} for Redlock over independent servers. The
 * contract they keep is in DESIGN.md ("Semantics every backend keeps").
 *
 * <h2>Key layout</h2>
 *
 * For a lock key {@code k} (the registry's key prefix included; <code>&#123;</code>, <code>&#125;</code> and
 * {@code %} percent-encoded):
 *
 * <ul>
 *   <li>{@code distlock:{k}} — hash with fields {@code owner} (registry:thread:hold), {@code token}
 *       and, while someone waits, {@code waiting}; expires with the lease ({@code PEXPIRE}).
 *   <li>{@code distlock:{k}:fence} — the last fencing token issued for {@code k}; never expires, so
 *       one small string stays per key ever locked.
 *   <li>channel {@code distlock:released} — a release publishes the lock hash's name here, only
 *       when a waiter set {@code waiting}. Each registry holds one subscription to it, opened at
 *       its first wait.
 * </ul>
 *
 * The hash tag {@code {k}} puts both keys in one Cluster slot. Keys travel as KEYS/ARGV, never
 * inside script text. The scripts ({@code acquire.lua}, {@code renew.lua}, {@code release.lua},
 * {@code raise-fence.lua}) are resources of this package, run with EVALSHA and sent once with EVAL
 * when a server answers NOSCRIPT.
 *
 * <h2>Fencing tokens</h2>
 *
 * A grant's token is {@code max(counter + 1, server TIME in microseconds)}, set in the same script
 * that takes the lock, so tokens keep rising after a restart that lost the counter as long as the
 * server clock does not go back. Under Redlock the token is the largest of the majority's tokens,
 * written back to that majority.
 */
package dev.distlock.redis;
