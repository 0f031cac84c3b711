/**
 * Internal: the engine every backend shares. {@code LockEngine} turns a backend's atomic operations into reentrant,
 * leased, fenced locks. {@code ReadWriteEngines} builds read/write locks of two engines over the two sides a backend
 * supplies. The engine is a pipeline of one class per stage ({@code Acquirer}, {@code Renewals}, {@code LeaseEnds},
 * {@code Releases}), each handed what it needs and calling only the stages after it. {@code Hold} is one hold's
 * state and calls nothing. {@code docs/architecture.md} describes the pipeline and {@code docs/internals/engine.md}
 * the reasons behind it. The rules it keeps are the contract in {@code docs/contract.md}.
 *
 * <p>Not an API. The only public class, {@link dev.distlock.core.engine.Engines}, implements the SPI's {@link
 * dev.distlock.core.spi.EngineFactory} and is found through {@code META-INF/services}, so the SPI never names an
 * engine class. Depends on the SPI and the API. Outside the API compatibility check ({@code RELEASING.md}), so it may
 * change in any release.
 */
package dev.distlock.core.engine;
