/**
 * Internal: the engine every backend shares. {@code LockEngine} turns a backend's atomic operations
 * into reentrant, leased, fenced locks; {@code ReadWriteEngines} builds read/write locks of two
 * engines over the two sides a backend supplies (the write side with one local permit per key, the
 * read side shared by local readers). One class per role: {@code Acquirer} takes holds, {@code Hold}
 * is the life of one hold (held, lingering, lost, ended) with the one path that ends it, {@code
 * Renewals} and {@code LeaseKeeper} keep leases, {@code KeyState} owns the local gate of a key,
 * {@code Ownership} counts reentrant acquisitions. The rules it keeps are the contract in {@code
 * docs/contract.md}.
 *
 * <p>Not an API: the only public class, {@link dev.distlock.core.engine.Engines}, is there for
 * {@link dev.distlock.core.spi.LockRegistrySupport} to start the engine. Depends on the SPI and the API.
 */
package dev.distlock.core.engine;
