package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Contract rule 11, operations. Who holds a key, evicting a holder, the backend's name. */
abstract class Rule11Operations extends LockGroup {

    Rule11Operations(LockRegistryContract contract) {
        super(contract);
    }

    @Test
    void holderOfNamesTheHolderInAnotherRegistry() throws Exception {
        String key = key();
        LockRegistry other = newRegistry(
                RegistryOptions.defaults().withLeaseTime(holdLeaseTime()).withApplicationName("contract-app"));
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<FencingToken> token = new AtomicReference<>();
        Thread holder = new Thread(
                () -> {
                    try (LockHandle handle = other.obtain(key).acquire()) {
                        token.set(handle.token());
                        holding.countDown();
                        done.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "holder-thread-1");
        holder.start();
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        try {
            LockHolder seen = registryA.holderOf(key).orElseThrow(() -> new AssertionError("no holder seen"));
            assertThat(seen.holder()).contains("contract-app").contains("holder-thread-1");
            assertThat(seen.token()).isEqualTo(token.get());
            // The read in two steps finds the same, with another call made between them.
            java.util.function.Supplier<java.util.Optional<LockHolder>> later = registryA.holderOfLater(key);
            assertThat(registryA.obtain(key + "-other").tryAcquire(java.time.Duration.ZERO))
                    .hasValueSatisfying(LockHandle::close);
            LockHolder seenLater =
                    later.get().orElseThrow(() -> new AssertionError("no holder seen by the later read"));
            assertThat(seenLater.holder()).isEqualTo(seen.holder());
            assertThat(seenLater.token()).isEqualTo(token.get());
        } finally {
            done.countDown();
            holder.join(10_000);
        }
        assertThat(registryA.holderOf(key))
                .as("nobody holds it after the release")
                .isEmpty();
        assertThat(registryA.holderOfLater(key).get())
                .as("nor after a read in two steps")
                .isEmpty();
    }

    @Test
    void aNoteRecordedWithAHoldIsReadBackByAnotherRegistry() throws Exception {
        String key = key();
        String note = "https://node-7.example:8443/jobs?term=3";
        try (LockHandle handle = registryB
                .obtain(key)
                .withNote(note)
                .acquireAsync(timingSlack())
                .get(30, TimeUnit.SECONDS)
                .orElseThrow(() -> new AssertionError("a free key was not granted"))) {
            LockHolder seen = registryA.holderOf(key).orElseThrow(() -> new AssertionError("no holder seen"));
            assertThat(seen.note()).contains(note);
            assertThat(seen.token()).isEqualTo(handle.token());
        }
        try (LockHandle plain = registryB.obtain(key).tryAcquire(timingSlack()).orElseThrow()) {
            assertThat(registryA.holderOf(key).orElseThrow().note())
                    .as("a hold taken without a note records none")
                    .isEmpty();
        }
    }

    @Test
    void forceReleaseEvictsTheHolderAndTheNextOwnerGetsALargerToken() throws Exception {
        String key = key();
        assertThat(registryA.forceRelease(key)).as("nothing to evict").isFalse();
        LockHandle stuck = registryB.obtain(key).acquire();
        assertThat(registryA.forceRelease(key)).isTrue();
        Optional<LockHandle> next = registryA.obtain(key).tryAcquire(timingSlack());
        assertThat(next).as("the key is free after the eviction").isPresent();
        assertThat(next.get().token().isNewerThan(stuck.token())).isTrue();
        stuck.close(); // the evicted holder's late release must not free the next owner
        assertThat(tryNow(newRegistry(), key)).isEmpty();
        next.get().close();
    }

    @Test
    void registryNamesItsBackend() {
        assertThat(registryA.backend()).isIn(contract().backendNames());
        assertThat(registryA.obtain(key()).key()).startsWith("contract-");
    }
}
