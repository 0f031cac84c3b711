package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Wakes this registry's waiters when a lock they wait for is released. The registry holds one subscription, however
 * many keys it locks, to two channels. On its own wake-up channel ({@code distlock:wake:<uuid>}, see {@link
 * #waitQueue}) a plain release wakes the first registry in that key's queue, and a read/write release every registry in
 * its queue. Every registry hears {@link LockKey#RELEASE_CHANNEL}, which carries releases of keys with nobody in the
 * queue. The message names the released lock.
 *
 * <p>The subscription opens on the first wait, so registries that never wait hold none. A wake-up on the own channel
 * that no waiter takes goes to {@link #onUnclaimed}, which passes it on. With Lettuce the subscription survives
 * reconnects. While it is down, waiters still look again at least every {@link RedisLockBackend#RECHECK}.
 */
final class ReleaseSubscriber implements MessageListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReleaseSubscriber.class);
    private static final byte[] CHANNEL = LockKey.RELEASE_CHANNEL.getBytes(StandardCharsets.UTF_8);

    private final RedisConnectionFactory factory;
    private final String wakeChannel = LockKey.WAKE_CHANNEL_PREFIX + UUID.randomUUID();
    private final byte[] wakeChannelBytes = wakeChannel.getBytes(StandardCharsets.UTF_8);
    private final ConcurrentHashMap<String, Set<Wakeup<?>>> waiters = new ConcurrentHashMap<>();
    private volatile Consumer<String> unclaimed = lock -> {};
    private CompletableFuture<RedisConnection> subscription;
    private boolean closed;

    ReleaseSubscriber(RedisConnectionFactory factory) {
        this.factory = factory;
    }

    /** A place in queues for this registry's waiters, on its wake-up channel, that lasts {@code place} after each attempt. */
    LockScripts.WaitQueue waitQueue(Duration place) {
        return LockScripts.WaitQueue.of(wakeChannel, place);
    }

    /**
     * The queue a waiting attempt of this registry asks for. It is {@code queue} while the subscription is confirmed,
     * else none, and the waiter then hears {@link LockKey#RELEASE_CHANNEL}. An attempt that will not wait gets none.
     */
    LockScripts.WaitQueue placeFor(boolean willWait, LockScripts.WaitQueue queue) {
        return willWait && listening() ? queue : LockScripts.WaitQueue.NONE;
    }

    /** True while the subscription is confirmed. Only then may this registry take a place in a queue. */
    private synchronized boolean listening() {
        return subscription != null && subscription.isDone() && !subscription.isCompletedExceptionally() && !closed;
    }

    /**
     * What to do with a wake-up on the own channel that no waiter of this registry takes. It was meant for the next
     * waiter in that lock's queue, so it must go on. The handler receives the lock's Redis key.
     */
    void onUnclaimed(Consumer<String> handler) {
        this.unclaimed = handler;
    }

    /**
     * Subscribes unless done already, on a thread of its own so that a server that dies meanwhile
     * cannot hold up a waiter. The stage completes once the subscription is confirmed.
     */
    synchronized CompletableFuture<?> ensureListening() {
        if (closed) {
            return CompletableFuture.completedFuture(null);
        }
        if (subscription == null || subscription.isCompletedExceptionally()) {
            subscription = new CompletableFuture<>();
            CompletableFuture<RedisConnection> pending = subscription;
            Thread thread = new Thread(() -> subscribe(pending), "distlock-redis-subscribe");
            thread.setDaemon(true);
            thread.start();
        }
        return subscription;
    }

    private void subscribe(CompletableFuture<RedisConnection> pending) {
        RedisConnection connection = null;
        try {
            connection = factory.getConnection();
            if (connection.getNativeConnection()
                    instanceof io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands<?, ?>) {
                // Lettuce subscribes and returns, and re-subscribes by itself after a reconnect.
                connection.subscribe(this, CHANNEL, wakeChannelBytes);
                pending.complete(connection);
            } else {
                // Other clients block the subscribing thread for as long as the subscription lasts.
                pending.complete(connection);
                connection.subscribe(this, CHANNEL, wakeChannelBytes);
            }
        } catch (RuntimeException e) {
            log.debug("Subscribing to {} failed; the next waiter tries again", LockKey.RELEASE_CHANNEL, e);
            if (connection != null) {
                connection.close();
            }
            pending.completeExceptionally(e);
        }
        synchronized (this) {
            if (closed) {
                closeQuietly(pending);
            }
        }
    }

    <R> Wakeup<R> register(String lockKey) {
        Wakeup<R> wakeup = new Wakeup<>();
        waiters.computeIfAbsent(lockKey, k -> ConcurrentHashMap.newKeySet()).add(wakeup);
        return wakeup;
    }

    void unregister(String lockKey, Wakeup<?> wakeup) {
        waiters.computeIfPresent(lockKey, (k, set) -> {
            set.remove(wakeup);
            return set.isEmpty() ? null : set;
        });
    }

    /** Wakes every waiter, e.g. after the connection dropped, so that each checks the server again. */
    void wakeAll() {
        waiters.values().forEach(set -> set.forEach(Wakeup::signal));
    }

    @Override
    public void onMessage(Message message, byte[] pattern) {
        String lock = new String(message.getBody(), StandardCharsets.UTF_8);
        Set<Wakeup<?>> woken = waiters.get(lock);
        if (woken != null && !woken.isEmpty()) {
            woken.forEach(Wakeup::released);
        } else if (Arrays.equals(message.getChannel(), wakeChannelBytes)) {
            try {
                unclaimed.accept(lock);
            } catch (RuntimeException e) {
                log.debug("Passing on the wake-up for {} failed; its waiters look again by themselves", lock, e);
            }
        }
    }

    @Override
    public void close() {
        CompletableFuture<RedisConnection> current;
        synchronized (this) {
            closed = true;
            current = subscription;
        }
        if (current != null) {
            closeQuietly(current);
        }
        wakeAll();
    }

    private static void closeQuietly(CompletableFuture<RedisConnection> subscription) {
        // A subscription that failed has no connection left to close.
        RedisConnection connection = subscription.isCompletedExceptionally() ? null : subscription.getNow(null);
        if (connection == null) {
            return;
        }
        try {
            if (connection.getSubscription() != null) {
                connection.getSubscription().close();
            }
            connection.close();
        } catch (RuntimeException e) {
            log.debug("Closing the release subscription failed", e);
        }
    }

    /**
     * One waiting thread's signal. A waiter that gave its next attempt ({@link #attemptOnRelease}) has it sent by the
     * thread that receives the release message, and is woken when the answer is in. The hand-over then does not wait
     * for the waiting thread to be scheduled.
     *
     * <p>A release message may come while such an attempt is out, so that attempt's answer "held" may be stale. The
     * waiter's signals cannot tell, so the next attempt is sent as soon as the waiter takes the one that was out.
     *
     * @param <R> what the waiter's attempt answers
     */
    static final class Wakeup<R> {

        private final Semaphore signal = new Semaphore(0);
        private Supplier<PendingReply<R>> nextAttempt;
        private PendingReply<R> sent;
        /** A release message came while {@link #sent} was out. */
        private boolean releasedSinceSent;

        private boolean closed;

        /** Has {@code attempt} sent on a release message from now on, at most one unanswered at a time. */
        synchronized void attemptOnRelease(Supplier<PendingReply<R>> attempt) {
            nextAttempt = attempt;
        }

        /**
         * The key was released. Sends the waiter's attempt if it gave one and none is out, and its answer wakes the
         * waiter. Otherwise wakes the waiter now.
         */
        void released() {
            PendingReply<R> attempt;
            synchronized (this) {
                if (closed || nextAttempt == null) {
                    attempt = null;
                } else if (sent == null) {
                    attempt = sendAttempt();
                } else {
                    releasedSinceSent = true;
                    attempt = null;
                }
            }
            if (attempt == null) {
                signal();
            }
        }

        /** Sends the waiter's attempt without blocking. Its answer wakes the waiter. Called with the monitor held. */
        private PendingReply<R> sendAttempt() {
            sent = nextAttempt.get();
            releasedSinceSent = false;
            sent.whenDone(this::signal);
            return sent;
        }

        /** Wakes the waiter without sending anything. */
        void signal() {
            signal.release();
        }

        /** True when woken, false when {@code nanos} passed first. */
        boolean await(long nanos) throws InterruptedException {
            if (!signal.tryAcquire(nanos, TimeUnit.NANOSECONDS)) {
                return false;
            }
            signal.drainPermits();
            return true;
        }

        /**
         * The attempt sent for the waiter since it last took one, or null. When a release came
         * while it was out, the next attempt is on its way already.
         */
        synchronized PendingReply<R> takeSent() {
            PendingReply<R> attempt = sent;
            sent = null;
            if (attempt != null && releasedSinceSent && !closed) {
                sendAttempt();
            }
            return attempt;
        }

        /** Sends nothing more. Returns the attempt sent that the waiter did not take, or null. */
        synchronized PendingReply<R> close() {
            closed = true;
            PendingReply<R> attempt = sent;
            sent = null;
            return attempt;
        }
    }
}
