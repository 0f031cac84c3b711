/**
 * Fencing for state kept in Redis: {@link dev.distlock.fencing.redis.RedisFenceStore}, whose scripts
 * apply {@link dev.distlock.core.fencing.FenceRule} and store a value with its token atomically.
 */
package dev.distlock.fencing.redis;
