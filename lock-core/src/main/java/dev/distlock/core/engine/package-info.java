/**
 * Internal: the engine every backend shares. {@code LockEngine} turns a backend's atomic operations
 * into reentrant, leased, fenced locks; {@code ReadWriteEngines} builds read/write locks of two
 * engines over the two sides a backend supplies (the write side with one local permit per key, the
 * read side shared by local readers). A pipeline of one class per stage, each handed what it needs
 * and calling only the stages after it: {@code Acquirer} takes holds; {@code Renewals} keeps their
 * leases, queuing its work on the {@code LeaseKeeper} (which keeps its own bookkeeping per hold);
 * {@code LeaseEnds} decides when a lease has ended (ran out, session unconfirmed, fixed lease over)
 * and is the one way to lose a hold; {@code Releases} is the release policy and the one way to end
 * a hold. {@code Hold} is one hold's state (held, lingering, lost, ended) and transitions, calling
 * nothing; what the engine hears of them goes through {@code HoldEvents}. {@code KeyState} owns the
 * local gate of a key, {@code Ownership} counts reentrant acquisitions. The rules it keeps are the contract in {@code
 * docs/contract.md}.
 *
 * <p>Not an API: the only public class, {@link dev.distlock.core.engine.Engines}, implements the SPI's
 * {@link dev.distlock.core.spi.EngineFactory} and is found through {@code META-INF/services}, so the SPI
 * never names an engine class. Depends on the SPI and the API. Outside the API compatibility check
 * ({@code RELEASING.md}): it may change in any release.
 */
package dev.distlock.core.engine;
