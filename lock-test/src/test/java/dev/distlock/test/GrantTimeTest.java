package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OwnerId;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The simulated server dates a lease from the look at the key that granted it, as contract 4 asks of every backend. */
class GrantTimeTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final TestLockServer server = new TestLockServer();
    private final ControlledBackend holder = new ControlledBackend(server, "");
    private final ControlledBackend waiter = new ControlledBackend(server, "");

    @Test
    void waiterLeaseCountsFromItsGrantNotFromItsCall() throws Exception {
        ControlledLease held =
                holder.tryAcquire(request("holder", Duration.ZERO)).orElseThrow();
        long[] releasedAt = new long[1];
        CompletableFuture<Boolean> release = CompletableFuture.supplyAsync(() -> {
            sleep(Duration.ofMillis(500));
            releasedAt[0] = System.nanoTime();
            return holder.release(held);
        });

        ControlledLease granted =
                waiter.tryAcquire(request("waiter", Duration.ofSeconds(10))).orElseThrow();

        assertThat(release.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(granted.grantRequestedAtNanos() - releasedAt[0])
                .as("the lease counts from the look that found the key released, not from before the wait")
                .isPositive();
    }

    private static LockRequest request(String owner, Duration wait) {
        return new LockRequest("report", new OwnerId(owner, 1, 1), LEASE, Deadline.after(wait));
    }

    private static void sleep(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
