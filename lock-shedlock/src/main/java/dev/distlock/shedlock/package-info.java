/**
 * ShedLock's {@code LockProvider} over a distlock {@link dev.distlock.core.LockRegistry}:
 * {@link dev.distlock.shedlock.DistlockLockProvider}.
 */
package dev.distlock.shedlock;
