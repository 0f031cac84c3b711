/**
 * The engine every backend shares: {@link dev.distlock.core.engine.LockEngine} turns a backend's
 * atomic operations into reentrant, leased, fenced locks. One class per role: {@code Acquirer}
 * takes holds, {@code Hold} is the life of one hold (held, lingering, lost, ended) with the one path
 * that ends it, {@code Renewals} and {@code LeaseKeeper} keep leases, {@code KeyState} owns the local
 * gate of a key, {@code Ownership} counts reentrant acquisitions. The rules it keeps are the contract
 * in {@code docs/contract.md}.
 */
package dev.distlock.core.engine;
