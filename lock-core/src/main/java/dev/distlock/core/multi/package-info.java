/**
 * Multi-key locks over any {@link dev.distlock.core.LockRegistry}: {@link dev.distlock.core.multi.MultiLock}
 * takes several keys all or nothing, in one global order (the keys' natural {@code String} order), so that
 * callers taking overlapping sets in any order never deadlock. A recipe over the public API only. It works on
 * every backend without backend code. Semantics (order, all or nothing, one token per key, loss, reentrancy):
 * {@code docs/multi-key-locks.md} and contract rule 14 in {@code docs/contract.md} at the repository root.
 */
package dev.distlock.core.multi;
