package dev.distlock.fencing.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ResourceGatesTest {

    private final ResourceGates gates = new ResourceGates();

    @Test
    void aSecondRequestToTheSameResourceWaitsUntilTheFirstEnds() throws Exception {
        ResourceGates.Gate first = gates.enter("ledger:1", Duration.ofSeconds(1));
        CountDownLatch trying = new CountDownLatch(1);
        CompletableFuture<ResourceGates.Gate> second = CompletableFuture.supplyAsync(() -> {
            trying.countDown();
            try {
                return gates.enter("ledger:1", Duration.ofSeconds(60));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(trying.await(30, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100); // the second request is waiting now, or about to
        assertThat(second).isNotDone();

        gates.leave(first);
        ResourceGates.Gate entered = second.get(30, TimeUnit.SECONDS);
        assertThat(entered).isNotNull();
        gates.leave(entered);
    }

    @Test
    void aRequestThatWaitsPastItsWaitGetsNoGate() throws Exception {
        ResourceGates.Gate first = gates.enter("ledger:2", Duration.ofSeconds(1));

        assertThat(gates.enter("ledger:2", Duration.ofMillis(50))).isNull();
        gates.leave(first);
        assertThat(gates.size()).isZero();
    }

    @Test
    void requestsToOtherResourcesDoNotWait() throws Exception {
        ResourceGates.Gate first = gates.enter("ledger:3", Duration.ofSeconds(1));
        ResourceGates.Gate other = gates.enter("ledger:4", Duration.ofMillis(1));

        assertThat(other).isNotNull();
        gates.leave(other);
        gates.leave(first);
    }

    @Test
    void gatesAreDroppedOnceNoRequestHoldsOrWaitsForThem() throws Exception {
        for (int i = 0; i < 100; i++) {
            gates.leave(gates.enter("resource-" + i, Duration.ofSeconds(1)));
        }
        assertThat(gates.size()).isZero();
    }
}
