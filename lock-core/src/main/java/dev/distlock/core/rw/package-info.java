/**
 * Read/write locks built of two lock engines over one server-side structure per key: the write
 * side (one local permit per key, like a mutex) and the read side (local readers share). Both
 * sides name their owners after one registry id, so a backend recognises a read request from the
 * thread that holds the write lock (downgrade). Backends supply the two sides as {@link
 * dev.distlock.core.spi.LockBackend}s; {@link dev.distlock.core.rw.ReadWriteLocks} does the rest.
 * The semantics, and what a resource compares, are in {@code docs/read-write-locks.md}.
 */
package dev.distlock.core.rw;
