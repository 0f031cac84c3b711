package dev.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * No herd: 20 waiters queue on one key, and each release wakes at most two of them: the next in
 * line, which takes the key, and the one behind it, which reads the line while the next holds. The
 * count is of the decisions the lock's queue rule is asked for (one per wake-up, whether the waiter
 * reads the line again or takes out the node it saw go); the control run injects a rule that
 * waits for the first node instead of the predecessor, as a naive lock would, to show the count
 * catches a herd.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperHerdIT extends OneServerIT {

    private static final int WAITERS = 20;

    private final List<ZooKeeperLockRegistry> registries = new ArrayList<>();

    @AfterEach
    void closeRegistries() throws InterruptedException {
        stopThreads();
        registries.forEach(ZooKeeperLockRegistry::close);
        registries.clear();
    }

    /** A naive rule: every waiter watches the first node in line. */
    private static final QueueRule WATCH_FIRST =
            (line, position) -> position == 0 ? QueueRule.Verdict.HOLDS : new QueueRule.Verdict(false, line.get(0));

    @Test
    void eachReleaseWakesAtMostTwoWaitersAndTheyHoldInTheOrderTheyQueued() throws Exception {
        Queue run = queueAndRelease(QueueRule.MUTEX);
        assertThat(run.reads()).as("at most two wake-ups per release").isBetween((long) WAITERS, 2L * WAITERS);
        assertThat(run.order()).as("first come, first served").isSorted();
    }

    @Test
    void watchingTheFirstNodeInsteadWouldWakeEveryWaiter() throws Exception {
        Queue run = queueAndRelease(WATCH_FIRST);
        assertThat(run.reads())
                .as("the holder's release alone wakes all %d waiters", WAITERS)
                .isGreaterThan(WAITERS * 4L);
    }

    /** Queues the waiters one after another behind a holder, then lets the holder go and counts. */
    private Queue queueAndRelease(QueueRule rule) throws Exception {
        CountingRule counting = new CountingRule(rule);
        CuratorFramework observer = clients.connect(server.getConnectString());
        List<CuratorFramework> waiterClients =
                List.of(clients.connect(server.getConnectString()), clients.connect(server.getConnectString()));
        String key = "herd-" + UUID.randomUUID();
        String keyPath = ZooKeeperLockRegistry.DEFAULT_ROOT_PATH + "/" + LockPaths.encode(key);
        ZooKeeperLockRegistry holder = register(clients.connect(server.getConnectString()), counting);
        LockHandle held = holder.obtain(key).acquire();

        List<ZooKeeperLockRegistry> waiters = new ArrayList<>();
        List<Future<Integer>> acquired = new ArrayList<>();
        List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < WAITERS; i++) {
            ZooKeeperLockRegistry waiter = register(waiterClients.get(i % waiterClients.size()), counting);
            waiters.add(waiter);
            int position = i;
            acquired.add(threads.submit(() -> {
                try (LockHandle handle =
                        waiter.obtain(key).tryAcquire(Duration.ofSeconds(60)).orElseThrow()) {
                    order.add(position);
                    Thread.sleep(5);
                }
                return position;
            }));
            int queued = i + 2;
            awaitQueueLength(observer, keyPath, queued);
        }
        long readsBefore = counting.decisions();
        held.close();
        for (Future<Integer> done : acquired) {
            done.get(60, TimeUnit.SECONDS);
        }
        return new Queue(counting.decisions() - readsBefore, order);
    }

    private ZooKeeperLockRegistry register(CuratorFramework client, QueueRule counting) {
        ZooKeeperLockRegistry registry = new ZooKeeperLockRegistry(
                new ZooKeeperLockBackend(client, new LockPaths(ZooKeeperLockRegistry.DEFAULT_ROOT_PATH), counting),
                RegistryOptions.defaults());
        registries.add(registry);
        return registry;
    }

    private static void awaitQueueLength(CuratorFramework observer, String keyPath, int length) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (observer.getChildren().forPath(keyPath).size() < length) {
            if (System.nanoTime() > end) {
                throw new AssertionError("the waiting line never reached " + length);
            }
            Thread.sleep(5);
        }
        // The waiter reads the line and sets its watch just after its node appears.
        Thread.sleep(30);
    }

    private record Queue(long reads, List<Integer> order) {}

    /** The rule under test, counting how often it is asked. */
    private static final class CountingRule implements QueueRule {

        private final QueueRule rule;
        private final AtomicLong decisions = new AtomicLong();

        CountingRule(QueueRule rule) {
            this.rule = rule;
        }

        @Override
        public Verdict decide(List<String> line, int position) {
            decisions.incrementAndGet();
            return rule.decide(line, position);
        }

        long decisions() {
            return decisions.get();
        }
    }
}
