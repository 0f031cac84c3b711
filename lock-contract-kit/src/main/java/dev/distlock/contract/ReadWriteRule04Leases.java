package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Read/write locks (contract rule 13) under rule 4, leases. A crashed reader or writer frees the key when its lease ends. */
abstract class ReadWriteRule04Leases extends ReadWriteGroup {

    ReadWriteRule04Leases(ReadWriteLockContract contract) {
        super(contract);
    }

    @Test
    void readerWhoseLeaseRanOutDoesNotBlockWriters() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        // A reader that never releases. Its process died, so only the lease ends it.
        LockHandle crashed =
                read(expiring, key).tryAcquire(Duration.ZERO, leaseTime()).orElseThrow();
        Optional<LockHandle> writer =
                write(registryB, key).tryAcquire(leaseTime().plus(timingSlack()).multipliedBy(3));
        assertThat(writer).isPresent();
        assertThat(crashed.isValid()).isFalse();
        writer.get().close();
    }

    @Test
    void writerWhoseLeaseRanOutDoesNotBlockReaders() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        write(expiring, key).tryAcquire(Duration.ZERO, leaseTime()).orElseThrow();
        Optional<LockHandle> reader =
                read(registryB, key).tryAcquire(leaseTime().plus(timingSlack()).multipliedBy(3));
        assertThat(reader).isPresent();
        reader.get().close();
    }

    @Test
    void closingAReadersRegistryFreesTheWriter() throws Exception {
        String key = key();
        LockRegistry doomed = newRegistry(RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(60)));
        tryNow(read(doomed, key)).orElseThrow();
        Future<Optional<LockHandle>> writer =
                inThread(() -> write(registryB, key).tryAcquire(LONG_WAIT));
        Thread.sleep(200);
        assertThat(writer.isDone()).isFalse();
        doomed.close();
        Optional<LockHandle> granted = await(writer);
        assertThat(granted).isPresent();
        granted.get().close();
    }
}
