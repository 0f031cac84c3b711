package dev.distlock.contract;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Watches readers and writers of one resource. A write pass reads a counter, sleeps and writes it
 * back plus one, and notes any reader or other writer inside at the same time. A read pass sleeps
 * and notes any writer inside. Under a working read/write lock writers see nobody and no update is
 * lost, while readers do meet each other.
 */
public final class ReadWriteOverlapDetector {

    private final AtomicInteger readers = new AtomicInteger();
    private final AtomicInteger writers = new AtomicInteger();
    private final AtomicInteger maxReaders = new AtomicInteger();
    private final AtomicInteger counter = new AtomicInteger();
    private final AtomicInteger writes = new AtomicInteger();
    private final AtomicBoolean writerMetSomeone = new AtomicBoolean();
    private final long sleepMillis;

    public ReadWriteOverlapDetector(long sleepMillis) {
        this.sleepMillis = sleepMillis;
    }

    /** One read pass. The caller should hold the read lock. */
    public void read() throws InterruptedException {
        maxReaders.accumulateAndGet(readers.incrementAndGet(), Math::max);
        try {
            checkNoWriter();
            Thread.sleep(sleepMillis);
            checkNoWriter();
        } finally {
            readers.decrementAndGet();
        }
    }

    /** One write pass. The caller should hold the write lock. */
    public void write() throws InterruptedException {
        if (writers.incrementAndGet() > 1 || readers.get() > 0) {
            writerMetSomeone.set(true);
        }
        try {
            int read = counter.get();
            Thread.sleep(sleepMillis);
            if (readers.get() > 0) {
                writerMetSomeone.set(true);
            }
            counter.set(read + 1);
        } finally {
            writers.decrementAndGet();
        }
        writes.incrementAndGet();
    }

    private void checkNoWriter() {
        if (writers.get() > 0) {
            writerMetSomeone.set(true);
        }
    }

    /** True when a writer shared the resource with anyone, or a write was lost. */
    public boolean writerOverlapSeen() {
        return writerMetSomeone.get() || counter.get() != writes.get();
    }

    /** The most readers seen inside at once. */
    public int maxConcurrentReaders() {
        return maxReaders.get();
    }

    public int writes() {
        return writes.get();
    }
}
