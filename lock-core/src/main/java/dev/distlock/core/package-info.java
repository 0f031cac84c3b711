/**
 * What applications call: {@link dev.distlock.core.LockRegistry}, {@link dev.distlock.core.FencedLock},
 * {@link dev.distlock.core.LockHandle} and {@link dev.distlock.core.FencingToken}. The semantics that
 * every backend keeps (mutual exclusion, reentrancy, owner-only release, leases, fencing tokens,
 * waiting without spinning, server time, input checks) are the contract in {@code docs/contract.md} at the repository root,
 * and the contract test kit in this module's test-jar checks each of them.
 */
package dev.distlock.core;
