package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The replies of one script sent to every Redlock node, taken as they arrive so that a decision can be made as soon as
 * a majority allows it. A slow or frozen minority costs nothing.
 *
 * @param <R> what the script's reply means
 */
final class NodeReplies<R> {

    private final List<PendingReply<R>> pending;
    private final Semaphore arrivals = new Semaphore(0);

    private NodeReplies(List<PendingReply<R>> pending) {
        this.pending = pending;
        pending.forEach(reply -> reply.whenDone(arrivals::release));
    }

    /** Sends the call made by {@code call} to every endpoint at once. */
    static <R> NodeReplies<R> send(List<RedisEndpoint> endpoints, Function<RedisEndpoint, ScriptCall<R>> call) {
        List<PendingReply<R>> sent = new ArrayList<>(endpoints.size());
        for (RedisEndpoint endpoint : endpoints) {
            sent.add(endpoint.send(call.apply(endpoint)));
        }
        return new NodeReplies<>(sent);
    }

    /**
     * Waits until {@code decided} holds for the tally so far, every node answered, or {@code timeout} passed, whichever
     * comes first. Replies still missing then count as not answered.
     */
    Tally<R> await(Duration timeout, Predicate<Tally<R>> decided) {
        long end = System.nanoTime() + timeout.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                Tally<R> tally = tally();
                long left = end - System.nanoTime();
                if (decided.test(tally) || tally.pending() == 0 || left <= 0) {
                    return tally;
                }
                try {
                    arrivals.tryAcquire(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    // The decision is bounded by the timeout, and the caller sees the flag afterwards.
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Tally<R> tally() {
        List<Answer<R>> answers = new ArrayList<>(pending.size());
        List<String> failures = new ArrayList<>();
        int waiting = 0;
        for (PendingReply<R> reply : pending) {
            if (!reply.isDone()) {
                waiting++;
                continue;
            }
            try {
                answers.add(new Answer<>(reply.endpoint(), reply.await(Duration.ZERO), reply.sentAtNanos()));
            } catch (RuntimeException e) {
                failures.add(reply.endpoint().address() + ": " + e.getMessage());
            }
        }
        return new Tally<>(answers, failures, waiting);
    }

    /** One node's reply. */
    record Answer<R>(RedisEndpoint node, R value, long sentAtNanos) {}

    /** The replies so far, with the failures and how many nodes have not answered yet. */
    record Tally<R>(List<Answer<R>> answers, List<String> failures, int pending) {

        long count(Predicate<R> test) {
            return answers.stream().filter(answer -> test.test(answer.value())).count();
        }

        /** Failures, and nodes that did not answer, for messages. */
        String problems() {
            List<String> all = new ArrayList<>(failures);
            if (pending > 0) {
                all.add(pending + " did not answer in time");
            }
            return String.join("; ", all);
        }
    }
}
