package dev.distlock.core;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * Many readers or one writer on one key. Both sides are {@link FencedLock}s with handles, tokens,
 * leases and the watchdog. The semantics (sharing, writer preference, downgrade, what a resource
 * compares) are in the contract, {@code docs/contract.md}.
 */
public interface FencedReadWriteLock extends ReadWriteLock {

    /** The key as the caller named it. */
    String key();

    @Override
    FencedLock readLock();

    @Override
    FencedLock writeLock();
}
