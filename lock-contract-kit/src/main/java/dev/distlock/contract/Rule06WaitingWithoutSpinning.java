package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Contract rule 6, waiting without spinning. A waiter is woken when the key frees, and can be interrupted. */
abstract class Rule06WaitingWithoutSpinning extends LockGroup {

    Rule06WaitingWithoutSpinning(LockRegistryContract contract) {
        super(contract);
    }

    @Test
    void waiterAcquiresPromptlyWhenHolderReleases() throws Exception {
        String key = key();
        LockHandle held = registryA.obtain(key).tryAcquire(Duration.ZERO).orElseThrow();
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> waiter = inThread(() -> {
            waiting.countDown();
            FencedLock lock = registryB.obtain(key);
            Optional<LockHandle> handle = lock.tryAcquire(Duration.ofSeconds(30));
            long acquiredAt = System.nanoTime();
            handle.orElseThrow().close();
            return acquiredAt;
        });
        waiting.await();
        Thread.sleep(200);
        assertThat(waiter.isDone())
                .as("waiter must not acquire while the key is held")
                .isFalse();
        long releasedAt = System.nanoTime();
        held.close();
        long wokeAfter = await(waiter) - releasedAt;
        assertThat(Duration.ofNanos(wokeAfter)).isLessThan(timingSlack().plus(timingSlack()));
    }

    @Test
    void waitingThreadCanBeInterrupted() throws Exception {
        String key = key();
        try (LockHandle held = registryA.obtain(key).acquire()) {
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            Future<Throwable> waiter = inThread(() -> {
                waiterThread.set(Thread.currentThread());
                try {
                    registryB.obtain(key).acquire();
                    return null;
                } catch (InterruptedException e) {
                    return e;
                }
            });
            Thread.sleep(200);
            long interruptedAt = System.nanoTime();
            waiterThread.get().interrupt();
            assertThat(await(waiter)).isInstanceOf(InterruptedException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - interruptedAt)).isLessThan(timingSlack());
            assertThat(held.isValid()).isTrue();
        }
        Optional<LockHandle> after = tryNow(registryB, key);
        assertThat(after).as("an interrupted waiter leaves nothing behind").isPresent();
        after.get().close();
    }

    @Test
    void interruptingAWaiterAsTheKeyFreesLeavesNothingHeld() throws Exception {
        // The interrupt lands at a different point of the hand-over in each round. Before, while and after
        // the waiter's server call takes the key. A grant whose answer the interrupt cut off must not stay.
        for (int round = 0; round < 40; round++) {
            String key = key();
            LockHandle held = registryB.obtain(key).acquire();
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            CountDownLatch waiting = new CountDownLatch(1);
            Future<Optional<LockHandle>> waiter = inThread(() -> {
                waiterThread.set(Thread.currentThread());
                waiting.countDown();
                try {
                    return registryA.obtain(key).tryAcquire(Duration.ofSeconds(60));
                } catch (InterruptedException e) {
                    return Optional.empty();
                }
            });
            waiting.await();
            Thread.sleep(20);
            held.close();
            long spinUntil = System.nanoTime() + (round % 20) * 100_000L;
            while (System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            }
            waiterThread.get().interrupt();
            await(waiter).ifPresent(LockHandle::close); // granted before the interrupt. Ours to close
            Optional<LockHandle> next = registryB.obtain(key).tryAcquire(timingSlack());
            assertThat(next)
                    .as("round %d: the interrupted waiter left nothing held", round)
                    .isPresent();
            next.get().close();
        }
    }

    @Test
    void localWaiterOfSameRegistryIsInterruptible() throws Exception {
        String key = key();
        try (LockHandle held = registryA.obtain(key).acquire()) {
            AtomicBoolean interrupted = new AtomicBoolean();
            Thread waiter = new Thread(() -> {
                try {
                    registryA.obtain(key).lockInterruptibly();
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
            });
            waiter.start();
            Thread.sleep(100);
            waiter.interrupt();
            waiter.join(timingSlack().toMillis() + 1000);
            assertThat(interrupted).isTrue();
        }
    }
}
