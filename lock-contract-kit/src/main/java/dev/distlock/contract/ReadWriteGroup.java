package dev.distlock.contract;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Base of the groups of {@link ReadWriteLockContract}. Read/write locks ({@code docs/read-write-locks.md}). */
abstract class ReadWriteGroup extends ContractGroup<ReadWriteLockContract> {

    static final Duration LONG_WAIT = Duration.ofSeconds(30);

    ReadWriteGroup(ReadWriteLockContract contract) {
        super(contract);
    }

    final Duration writerStarvationBound() {
        return contract().writerStarvationBound();
    }

    static FencedLock read(LockRegistry registry, String key) {
        return registry.readWriteLock(key).readLock();
    }

    static FencedLock write(LockRegistry registry, String key) {
        return registry.readWriteLock(key).writeLock();
    }

    static Optional<LockHandle> tryNow(FencedLock lock) throws InterruptedException {
        return lock.tryAcquire(Duration.ZERO);
    }

    /** Waits until a new reader of another registry is refused, i.e. the writer is queued on the server. */
    final void awaitWriterQueued(String key) throws Exception {
        LockRegistry probe = newRegistry();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - until < 0) {
            Optional<LockHandle> reader = tryNow(read(probe, key));
            if (reader.isEmpty()) {
                return;
            }
            reader.get().close();
            Thread.sleep(20);
        }
        throw new AssertionError("the waiting writer never made new readers wait");
    }
}
