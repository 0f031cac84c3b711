package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencedReadWriteLock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Read/write locks (contract rule 13) under rule 10, bad input gets a clear error. */
abstract class ReadWriteRule10BadInputGetsAClearError extends ReadWriteGroup {

    ReadWriteRule10BadInputGetsAClearError(ReadWriteLockContract contract) {
        super(contract);
    }

    @Test
    void badKeysAndDurationsAreRejected() {
        assertThatThrownBy(() -> registryA.readWriteLock(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(() -> registryA.readWriteLock(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
        assertThatThrownBy(() -> registryA.readWriteLock("k".repeat(100_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most");
        FencedReadWriteLock lock = registryA.readWriteLock(key());
        for (FencedLock side : List.of(lock.readLock(), lock.writeLock())) {
            assertThatThrownBy(() -> side.tryAcquire(Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("waitTime");
            assertThatThrownBy(() -> side.tryAcquire(Duration.ZERO, Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("leaseTime");
            assertThat(side.holdCount()).isZero();
        }
    }

    @Test
    void readWriteLockNamesItsKey() {
        String key = key();
        FencedReadWriteLock lock = registryA.readWriteLock(key);
        assertThat(lock.key()).isEqualTo(key);
        assertThat(lock.readLock().key()).isEqualTo(key);
        assertThat(lock.writeLock().key()).isEqualTo(key);
        assertThatThrownBy(() -> lock.readLock().newCondition()).isInstanceOf(UnsupportedOperationException.class);
    }
}
