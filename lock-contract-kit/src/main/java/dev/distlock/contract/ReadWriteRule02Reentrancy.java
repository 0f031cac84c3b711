package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Read/write locks (contract rule 13) under rule 2, reentrancy. Each side is reentrant. Downgrade yes, upgrade no. */
abstract class ReadWriteRule02Reentrancy extends ReadWriteGroup {

    ReadWriteRule02Reentrancy(ReadWriteLockContract contract) {
        super(contract);
    }

    @Test
    void eachSideIsReentrant() throws Exception {
        String key = key();
        FencedReadWriteLock lock = registryA.readWriteLock(key);
        try (LockHandle outer = lock.writeLock().acquire();
                LockHandle inner = lock.writeLock().tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(lock.writeLock().holdCount()).isEqualTo(2);
            assertThat(inner.token()).isEqualTo(outer.token());
        }
        try (LockHandle outer = lock.readLock().acquire();
                LockHandle inner = lock.readLock().tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(lock.readLock().holdCount()).isEqualTo(2);
            assertThat(lock.writeLock().holdCount()).isZero();
        }
        Optional<LockHandle> other = tryNow(write(registryB, key));
        assertThat(other).as("all holds released").isPresent();
        other.get().close();
    }

    @Test
    void writerTakesTheReadLockAndKeepsItAfterReleasingTheWriteLock() throws Exception {
        String key = key();
        FencedReadWriteLock lock = registryA.readWriteLock(key);
        LockHandle write = lock.writeLock().acquire();
        // Another registry's writer waits meanwhile. The downgrade must not queue behind it.
        Future<Optional<LockHandle>> otherWriter =
                inThread(() -> write(registryB, key).tryAcquire(LONG_WAIT));
        Thread.sleep(200);
        LockHandle read = lock.readLock().tryAcquire(Duration.ZERO).orElseThrow();
        assertThat(read.token().compareTo(write.token())).isGreaterThanOrEqualTo(0);
        write.close();
        assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
        Thread.sleep(200);
        assertThat(otherWriter.isDone())
                .as("the downgraded reader still excludes writers")
                .isFalse();
        read.close();
        Optional<LockHandle> next = await(otherWriter);
        assertThat(next).isPresent();
        assertThat(next.get().token().isNewerThan(read.token())).isTrue();
        next.get().close();
    }

    @Test
    void downgradedReaderWhoseWriteHoldRanOutIsRefusedTheWriteLockAtOnce() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        FencedReadWriteLock lock = expiring.readWriteLock(key);
        // The acquisitions that must succeed wait as long as they need. Each is a round trip, and a
        // zero wait gives it only the contract's 250 ms overrun, which a loaded machine can exceed.
        // A fixed lease, never renewed. The write hold runs out while the thread keeps reading.
        LockHandle write = lock.writeLock().tryAcquire(LONG_WAIT, leaseTime()).orElseThrow();
        LockHandle read = lock.readLock().tryAcquire(LONG_WAIT).orElseThrow();
        Thread.sleep(leaseTime().plus(timingSlack()).toMillis());
        assertThat(write.isValid()).isFalse();
        assertThat(read.isValid()).isTrue();
        // Its only live hold is the read. A new write hold would wait for it, its own, until the wait
        // ends. Refused at once, as an upgrade is. Before waiting, so long before the wait could end.
        long start = System.nanoTime();
        assertThatThrownBy(() -> lock.writeLock().tryAcquire(LONG_WAIT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("write hold was lost");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LONG_WAIT.dividedBy(2));
        write.close();
        read.close();
        try (LockHandle again = lock.writeLock().tryAcquire(LONG_WAIT).orElseThrow()) {
            assertThat(again.token().isNewerThan(write.token())).isTrue();
        }
        Optional<LockHandle> other = write(registryB, key).tryAcquire(LONG_WAIT);
        assertThat(other).as("all holds released").isPresent();
        other.get().close();
    }

    @Test
    void readerAskingForTheWriteLockIsRefusedAtOnce() throws Exception {
        String key = key();
        FencedReadWriteLock lock = registryA.readWriteLock(key);
        try (LockHandle read = lock.readLock().acquire()) {
            assertThatThrownBy(() -> lock.writeLock().tryAcquire(LONG_WAIT))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(key)
                    .hasMessageContaining("read lock");
            assertThatThrownBy(() -> lock.writeLock().lock()).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> lock.writeLock().tryLock()).isInstanceOf(IllegalStateException.class);
            assertThat(lock.writeLock().holdCount()).isZero();
            assertThat(read.isValid()).isTrue();
        }
        try (LockHandle write = lock.writeLock().tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(write.isValid())
                    .as("after the read is released, the write lock is granted")
                    .isTrue();
        }
    }
}
