package dev.distlock.test.spring;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.MemoryFenceStore;
import dev.distlock.core.fencing.StaleTokenException;
import dev.distlock.test.LockControl;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

/**
 * The worked example of the README's "Testing code that uses locks", as it runs; the fence store it
 * injects is the one {@code @AutoConfigureTestLocks} supplies to an application without one.
 */
@SpringBootTest(classes = ReadmeExampleTest.Application.class)
@AutoConfigureTestLocks
class ReadmeExampleTest {

    /** Says when a charge starts and holds it up until the test lets it go; lets every charge through when not armed. */
    static final class Gateway {
        volatile CountDownLatch charging = new CountDownLatch(1);
        volatile CountDownLatch proceed = new CountDownLatch(0);

        void charge(String batch) {
            charging.countDown();
            try {
                proceed.await(30, SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @SpringBootApplication
    static class Application {
        @Bean
        Gateway gateway() {
            return new Gateway();
        }

        @Bean
        PaymentJob paymentJob(LockControl control, LockRegistry registry, FenceStore fences, Gateway gateway) {
            return new PaymentJob(control, registry, fences, gateway::charge);
        }
    }

    @Autowired
    PaymentJob job;

    @Autowired
    LockControl locks;

    @Autowired
    FenceStore fences;

    @Autowired
    Gateway gateway;

    @Autowired
    LockRegistry registry;

    @Test
    void aBatchAnotherInstanceIsPayingIsNotPaidTwice() {
        locks.holdElsewhere("payments:b-1", "payments@host-2");

        assertThatThrownBy(() -> job.pay("b-1")).isInstanceOf(LockNotAcquiredException.class);
    }

    @Test
    void aPaymentWhoseLeaseIsLostMidwayIsRefusedByTheFence() throws Exception {
        gateway.charging = new CountDownLatch(1);
        gateway.proceed = new CountDownLatch(1);
        CompletableFuture<FencingToken> paying = CompletableFuture.supplyAsync(() -> job.pay("b-2"));
        assertThat(gateway.charging.await(10, SECONDS)).isTrue(); // inside pay(), past its assertHeld

        // The lease is lost while the charge runs; the next holder records the batch first.
        FencingToken next = locks.takeOver("payments:b-2", "payments@host-2");
        fences.admitWrite("batch:b-2", new FencingClaim(registry.backend(), "payments:b-2", next));
        gateway.proceed.countDown();

        assertThatThrownBy(() -> paying.get(10, SECONDS)).hasCauseInstanceOf(StaleTokenException.class);
    }

    @Test
    void theFenceStoreIsTheOneInMemoryTheTestSupportSupplies() {
        assertThat(fences).isInstanceOf(MemoryFenceStore.class);
    }

    @Test
    void theJobRunsUnderItsLock() {
        job.pay("b-3");

        assertThat(locks.history().acquiredKeys()).containsExactly("payments:b-3");
        assertThat(locks.history().unheldCalls()).isEmpty();
    }
}
