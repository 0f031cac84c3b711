/**
 * Fence stores for the resources a lock protects: SQL ({@code dev.distlock.fencing.jdbc}), Redis
 * data ({@code dev.distlock.fencing.redis}) and HTTP ({@code dev.distlock.fencing.http}), each
 * applying {@link dev.distlock.core.fencing.FenceRule}. See {@code docs/fencing.md}.
 */
package dev.distlock.fencing;
