package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.LockHandle;
import org.junit.jupiter.api.Test;

/** Read/write locks (contract rule 13) under rule 3, owner-only release. A side the thread does not hold is not released. */
abstract class ReadWriteRule03OwnerOnlyRelease extends ReadWriteGroup {

    ReadWriteRule03OwnerOnlyRelease(ReadWriteLockContract contract) {
        super(contract);
    }

    @Test
    void unlockOfASideTheThreadDoesNotHoldIsRefused() throws Exception {
        String key = key();
        FencedReadWriteLock lock = registryA.readWriteLock(key);
        try (LockHandle read = lock.readLock().acquire()) {
            assertThatThrownBy(() -> lock.writeLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);
        }
        assertThatThrownBy(() -> lock.readLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);
    }
}
