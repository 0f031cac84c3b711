package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The signal of one waiting thread, and the attempt a release message sends on its behalf. */
class WakeupTest {

    private final AtomicInteger sent = new AtomicInteger();
    private CompletableFuture<Object> answer = new CompletableFuture<>();

    private PendingReply<Object> send() {
        sent.incrementAndGet();
        return new PendingReply<>(null, null, System.nanoTime(), answer);
    }

    @Test
    void aReleaseSendsTheAttemptAndWakesTheWaiterOnceItIsAnswered() throws Exception {
        ReleaseSubscriber.Wakeup<Object> wakeup = new ReleaseSubscriber.Wakeup<>();
        wakeup.attemptOnRelease(this::send);

        wakeup.released();

        assertThat(sent).hasValue(1);
        assertThat(wakeup.await(TimeUnit.MILLISECONDS.toNanos(20)))
                .as("woken before the answer came")
                .isFalse();
        answer.complete(1L);
        assertThat(wakeup.await(TimeUnit.SECONDS.toNanos(1))).isTrue();
        assertThat(wakeup.takeSent()).isNotNull();
        assertThat(wakeup.takeSent()).as("taken once").isNull();
    }

    @Test
    void aSecondReleaseWhileAnAttemptIsUnansweredSendsNothingMoreButWakes() throws Exception {
        ReleaseSubscriber.Wakeup<Object> wakeup = new ReleaseSubscriber.Wakeup<>();
        wakeup.attemptOnRelease(this::send);

        wakeup.released();
        wakeup.released();

        assertThat(sent).hasValue(1);
        assertThat(wakeup.await(TimeUnit.SECONDS.toNanos(1))).isTrue();
    }

    @Test
    void aReleaseThatCameWhileTheSentAttemptWasOutSendsAnotherOnceTheWaiterTakesIt() throws Exception {
        ReleaseSubscriber.Wakeup<Object> wakeup = new ReleaseSubscriber.Wakeup<>();
        wakeup.attemptOnRelease(this::send);
        wakeup.released(); // sends the attempt; it finds the key held by a newcomer
        wakeup.released(); // the newcomer released after the attempt ran, before its answer came
        answer.complete(-2L); // "held": already stale
        answer = new CompletableFuture<>();

        // The waiter is scheduled late: both wake-ups are there when it runs.
        assertThat(wakeup.await(TimeUnit.SECONDS.toNanos(1))).isTrue();
        assertThat(wakeup.takeSent()).isNotNull();

        assertThat(sent)
                .as("the second release must not be folded into the stale answer")
                .hasValue(2);
        answer.complete(1L);
        assertThat(wakeup.await(TimeUnit.SECONDS.toNanos(1)))
                .as("woken by the answer of the attempt sent for the second release")
                .isTrue();
        assertThat(wakeup.takeSent()).isNotNull();
    }

    @Test
    void aClosedWakeupSendsNothingAndHandsBackTheAttemptTheWaiterDidNotTake() {
        ReleaseSubscriber.Wakeup<Object> wakeup = new ReleaseSubscriber.Wakeup<>();
        wakeup.attemptOnRelease(this::send);
        wakeup.released();

        assertThat(wakeup.close())
                .as("the untaken attempt, for the waiter to undo")
                .isNotNull();
        wakeup.released();
        assertThat(sent).hasValue(1);
        assertThat(wakeup.close()).isNull();
    }

    @Test
    void withoutAnAttemptAReleaseOnlyWakes() throws Exception {
        ReleaseSubscriber.Wakeup<Object> wakeup = new ReleaseSubscriber.Wakeup<>();

        wakeup.released();

        assertThat(wakeup.await(TimeUnit.SECONDS.toNanos(1))).isTrue();
        assertThat(wakeup.takeSent()).isNull();
    }
}
