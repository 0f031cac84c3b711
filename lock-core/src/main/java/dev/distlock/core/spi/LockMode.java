package dev.distlock.core.spi;

/** The side of a read/write lock a request is for. */
public enum LockMode {
    /** Shared with other readers; excluded by a writer. */
    READ,
    /** Excludes readers and other writers. */
    WRITE
}
