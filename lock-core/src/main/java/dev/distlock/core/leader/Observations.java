package dev.distlock.core.leader;

import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What all leader observations of the JVM share. One timer thread, which only hands work on, and a pool that runs
 * the reads and the observers' calls (its threads end after a few idle seconds, so no subscription has a thread of
 * its own). And the subscriptions by registry and name, which a candidate of the same registry tells of each term
 * it begins or ends.
 */
final class Observations {

    private static final long IDLE_SECONDS = 10;
    private static final ScheduledThreadPoolExecutor TIMER = timer();
    private static final ExecutorService WORK = new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            IDLE_SECONDS,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            daemonThreads("distlock-leader-observer-"));
    private static final ConcurrentHashMap<Topic, Set<LeaderPoller>> SUBSCRIBED = new ConcurrentHashMap<>();

    private Observations() {}

    /** Runs {@code task} on the pool after {@code delay}. */
    static ScheduledFuture<?> schedule(Runnable task, Duration delay) {
        return TIMER.schedule(() -> WORK.execute(task), delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Runs {@code task} on the pool now. */
    static void run(Runnable task) {
        WORK.execute(task);
    }

    static void subscribe(LockRegistry registry, String name, LeaderPoller poller) {
        SUBSCRIBED
                .computeIfAbsent(new Topic(registry, name), topic -> ConcurrentHashMap.newKeySet())
                .add(poller);
    }

    static void unsubscribe(LockRegistry registry, String name, LeaderPoller poller) {
        SUBSCRIBED.computeIfPresent(new Topic(registry, name), (topic, pollers) -> {
            pollers.remove(poller);
            return pollers.isEmpty() ? null : pollers;
        });
    }

    /**
     * A candidate of {@code registry} began or ended a term of {@code name}. Its observers read at once. Handed to
     * the pool, so that the candidate's thread never waits for an observer.
     */
    static void termChanged(LockRegistry registry, String name) {
        Set<LeaderPoller> pollers = SUBSCRIBED.get(new Topic(registry, name));
        if (pollers != null) {
            pollers.forEach(poller -> WORK.execute(poller::readNow));
        }
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemonThreads("distlock-leader-timer-"));
        timer.setRemoveOnCancelPolicy(true);
        // The thread ends only when nothing is scheduled, so an idle JVM keeps none.
        timer.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        return timer;
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** A registry instance (by identity) and a name. */
    private record Topic(LockRegistry registry, String name) {

        @Override
        public boolean equals(Object other) {
            return other instanceof Topic topic && topic.registry == registry && topic.name.equals(name);
        }

        @Override
        public int hashCode() {
            return 31 * System.identityHashCode(registry) + name.hashCode();
        }
    }
}
