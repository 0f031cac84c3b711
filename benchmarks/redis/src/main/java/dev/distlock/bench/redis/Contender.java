package dev.distlock.bench.redis;

/**
 * One lock library under measurement. {@link #forKey} gives the lock of one key as a pair of
 * calls; each thread of a throughput run gets its own key, so only the client path is measured.
 */
interface Contender extends AutoCloseable {

    String name();

    /** The acquire and release of {@code key}, for one thread. */
    LockOps forKey(String key);

    @Override
    void close();

    /** Acquire (waiting as long as it takes) and release of one key. */
    interface LockOps {

        void acquire() throws Exception;

        void release() throws Exception;
    }
}
