package dev.distlock.redis;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.LockScripts.AcquireReply;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wait for one key on one Redis server or Cluster, shared by plain and read/write locks. A first attempt may go out
 * in a batch. While the deadline allows, a wake-up is registered with the {@link ReleaseSubscriber} before every
 * further attempt, and the waiter sleeps until a release message or the lock kind's re-check time. Transient failures
 * are ridden out ({@link RideOut}), and attempts whose answer was lost or not used are withdrawn. The lock kind says
 * what an attempt sends and what its answer means ({@link Attempts}).
 */
final class KeyWait {

    private static final Logger log = LoggerFactory.getLogger(KeyWait.class);

    private final RedisEndpoint endpoint;
    private final ReleaseSubscriber subscriber;
    private final Duration commandTimeout;
    /**
     * How long past the caller's deadline a call may still wait for its answer. It is the whole answer budget, so that
     * a zero-wait attempt gets all of it for one round trip (contract 8).
     */
    private final Duration slack;
    /**
     * The same for a call sent while waiting, which gets half the budget. It may go out just before the deadline, and
     * its withdrawal still has to fit in the budget.
     */
    private final Duration waitingSlack;

    KeyWait(RedisEndpoint endpoint, ReleaseSubscriber subscriber, CallLimits limits) {
        this.endpoint = endpoint;
        this.subscriber = subscriber;
        this.commandTimeout = limits.commandTimeout();
        this.slack = limits.answerBudget();
        this.waitingSlack = limits.answerBudget().dividedBy(2);
    }

    /**
     * What one lock kind sends for one request, and what the answers mean.
     *
     * @param <L> the lease a grant becomes
     */
    interface Attempts<L> {

        /** The message a release of this key publishes, which wakes the waiter. */
        String releaseMessage();

        /** One acquisition script. {@code willWait} asks the holder's release to publish. */
        ScriptCall<AcquireReply> acquire(boolean willWait);

        /**
         * The lease of a granted attempt sent at {@code sentAtNanos}. A {@link LockBackendException} counts as a failed
         * attempt.
         */
        L granted(AcquireReply reply, long sentAtNanos) throws InterruptedException;

        /** The longest to sleep after {@code refused} before attempting again without a message. */
        long recheckNanos(AcquireReply refused);

        /** Frees what an attempt whose answer was lost or not used may have taken. */
        ScriptCall<Boolean> withdraw();

        /**
         * True when the {@link #withdraw} goes right after each lost answer. False when it goes once, as the wait ends
         * without a grant, because an attempt repeated by the same owner takes nothing twice.
         */
        boolean withdrawsAtOnce();

        /** True when a release message sends the next attempt from the thread that receives it. */
        boolean attemptsOnRelease();

        /** Called when a request that could wait ends without a grant. */
        default void stoppedWaiting() {}
    }

    /** The lease, or empty when the deadline passed with the key held. */
    <L> Optional<L> acquire(LockRequest request, Attempts<L> attempts) throws InterruptedException {
        boolean couldWait = !request.deadline().hasPassed();
        boolean granted = false;
        try {
            Optional<L> lease = couldWait ? firstThenWait(request, attempts) : once(request, attempts);
            granted = lease.isPresent();
            return lease;
        } catch (InterruptedException e) {
            if (!attempts.withdrawsAtOnce()) {
                // The interrupt may have cut off a grant's answer. The withdrawal goes after it on the same connection.
                endpoint.send(attempts.withdraw());
            }
            throw e;
        } finally {
            if (couldWait && !granted) {
                attempts.stoppedWaiting();
            }
        }
    }

    /** One attempt without waiting. */
    private <L> Optional<L> once(LockRequest request, Attempts<L> attempts) throws InterruptedException {
        try {
            PendingReply<AcquireReply> pending = send(attempts, false, true);
            return Optional.ofNullable(lease(pending, reply(pending, request, attempts, slack), attempts));
        } catch (LockBackendException e) {
            if (!attempts.withdrawsAtOnce()) {
                // Not waited for, as the caller's deadline does not cover another round trip.
                endpoint.send(attempts.withdraw());
            }
            throw e;
        }
    }

    private <L> Optional<L> firstThenWait(LockRequest request, Attempts<L> attempts) throws InterruptedException {
        LockBackendException firstFailure = null;
        try {
            PendingReply<AcquireReply> pending = send(attempts, true, true);
            L lease = lease(pending, reply(pending, request, attempts, slack), attempts);
            if (lease != null || request.deadline().hasPassed()) {
                return Optional.ofNullable(lease);
            }
        } catch (LockBackendException e) {
            firstFailure = e;
        }
        return await(request, attempts, firstFailure);
    }

    /**
     * Waits for the key after a first attempt found it held or failed with {@code firstFailure}. A release message
     * wakes it, or it looks again after the lock kind's re-check time, so a lost message costs a re-check, not the
     * wait. Transient failures are ridden out until the deadline.
     */
    private <L> Optional<L> await(LockRequest request, Attempts<L> attempts, LockBackendException firstFailure)
            throws InterruptedException {
        Deadline deadline = request.deadline();
        RideOut rideOut = new RideOut(endpoint.address(), request.key());
        ReleaseSubscriber.Wakeup<AcquireReply> wakeup = subscriber.register(attempts.releaseMessage());
        boolean granted = false;
        try {
            if (firstFailure != null) {
                rideOut.failed(firstFailure, deadline);
            }
            awaitSubscription(deadline);
            if (attempts.attemptsOnRelease() && endpoint.sendsWithoutBlocking()) {
                wakeup.attemptOnRelease(() -> send(attempts, true, false));
            }
            PendingReply<AcquireReply> sent = null;
            while (true) {
                AcquireReply reply;
                try {
                    // Registered before this attempt, so a release after it cannot go unnoticed.
                    PendingReply<AcquireReply> pending = sent != null ? sent : send(attempts, true, false);
                    reply = reply(pending, request, attempts, waitingSlack);
                    L lease = lease(pending, reply, attempts);
                    if (lease != null) {
                        granted = true;
                        return Optional.of(lease);
                    }
                } catch (LockBackendException e) {
                    sent = null;
                    rideOut.failed(e, deadline); // returns after a back-off, or throws when the wait is over
                    subscriber.ensureListening(); // the subscription may have failed while Redis was away
                    continue;
                }
                rideOut.answered();
                long slice = Math.min(deadline.remainingNanos(), attempts.recheckNanos(reply));
                boolean woken = slice > 0 && wakeup.await(slice);
                if (!woken && deadline.hasPassed()) {
                    return Optional.empty();
                }
                sent = wakeup.takeSent();
            }
        } finally {
            subscriber.unregister(attempts.releaseMessage(), wakeup);
            boolean unused = wakeup.close() != null;
            if (!granted && (unused || (!attempts.withdrawsAtOnce() && rideOut.failedBefore()))) {
                // An unused attempt, or one whose answer was lost, may still take the key. The withdrawal goes after it
                // on the same connection.
                endpoint.send(attempts.withdraw());
            }
        }
    }

    /**
     * One attempt. The {@code first} may go out in a batch with other threads' calls ({@link
     * RedisEndpoint#sendBatched}). Later ones, sent because the key was released, go at once.
     */
    private PendingReply<AcquireReply> send(Attempts<?> attempts, boolean willWait, boolean first) {
        ScriptCall<AcquireReply> call = attempts.acquire(willWait);
        return first ? endpoint.sendBatched(call) : endpoint.send(call);
    }

    /** The attempt's answer, or a {@link LockBackendException} when none came (the script may still have run). */
    private AcquireReply reply(
            PendingReply<AcquireReply> pending, LockRequest request, Attempts<?> attempts, Duration slack)
            throws InterruptedException {
        try {
            return pending.await(callTimeout(request.deadline(), slack));
        } catch (RuntimeException e) {
            if (attempts.withdrawsAtOnce()) {
                endpoint.send(attempts.withdraw());
            }
            if (Thread.interrupted()) {
                throw new InterruptedException(
                        "Interrupted while acquiring lock '" + request.key() + "' on " + endpoint.address());
            }
            throw e;
        }
    }

    /** The lease of a granted answer, or null when refused. */
    private static <L> L lease(PendingReply<AcquireReply> pending, AcquireReply reply, Attempts<L> attempts)
            throws InterruptedException {
        return reply.granted() ? attempts.granted(reply, pending.sentAtNanos()) : null;
    }

    /** Gives the first subscription a moment to be confirmed. Without it, waits end only at the re-check. */
    private void awaitSubscription(Deadline deadline) throws InterruptedException {
        long limit = Math.min(deadline.remainingNanos(), commandTimeout.toNanos());
        try {
            subscriber.ensureListening().get(limit, TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException e) {
            log.debug("Release subscription not confirmed; waiting with capped waits only", e);
        }
    }

    /** The command timeout, cut to the deadline plus the answer budget. */
    Duration callTimeout(Deadline deadline) {
        return callTimeout(deadline, slack);
    }

    private Duration callTimeout(Deadline deadline, Duration slack) {
        return Duration.ofNanos(Math.min(commandTimeout.toNanos(), deadline.remainingNanos() + slack.toNanos()));
    }
}
