/**
 * Counting semaphores over any {@link dev.distlock.core.LockRegistry}, built from its locks alone:
 * {@link dev.distlock.core.semaphore.LeasedSemaphore#of} declares one, and each granted
 * {@link dev.distlock.core.semaphore.Permit} is a leased, fenced hold of one of its slot keys. The model, the order in
 * which waiters are served, the permit-count check and the cost of an acquisition are in {@code docs/semaphores.md}.
 * The rules every backend keeps are section 15 of {@code docs/contract.md}.
 */
package dev.distlock.core.semaphore;
