package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Wakes this registry's waiters when a lock they wait for is released. The registry holds ONE
 * subscription, to {@link RedisKeys#RELEASE_CHANNEL}, however many keys it locks; the message
 * names the released lock. It is opened on the first wait, not before, so registries that never
 * wait hold none. Waiters are kept only while they wait.
 */
final class ReleaseSubscriber implements MessageListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReleaseSubscriber.class);

    private final RedisConnectionFactory factory;
    private final ConcurrentHashMap<String, Set<Wakeup>> waiters = new ConcurrentHashMap<>();
    private RedisMessageListenerContainer container;
    private boolean closed;

    ReleaseSubscriber(RedisConnectionFactory factory) {
        this.factory = factory;
    }

    /** Subscribes if not yet done; returns once the subscription is confirmed (or failed: waits are capped anyway). */
    synchronized void ensureListening() {
        if (container != null || closed) {
            return;
        }
        RedisMessageListenerContainer created = new RedisMessageListenerContainer();
        created.setConnectionFactory(factory);
        created.setBeanName("distlock-release-subscriber");
        created.addMessageListener(this, new ChannelTopic(RedisKeys.RELEASE_CHANNEL));
        created.afterPropertiesSet();
        try {
            created.start();
        } catch (RuntimeException e) {
            log.debug(
                    "Subscription to {} is not confirmed yet; it is retried in the background",
                    RedisKeys.RELEASE_CHANNEL,
                    e);
        }
        container = created;
    }

    Wakeup register(String lockKey) {
        Wakeup wakeup = new Wakeup();
        waiters.computeIfAbsent(lockKey, k -> ConcurrentHashMap.newKeySet()).add(wakeup);
        return wakeup;
    }

    void unregister(String lockKey, Wakeup wakeup) {
        waiters.computeIfPresent(lockKey, (k, set) -> {
            set.remove(wakeup);
            return set.isEmpty() ? null : set;
        });
    }

    /** Wakes every waiter, e.g. after the connection dropped, so that each checks the server again. */
    void wakeAll() {
        waiters.values().forEach(set -> set.forEach(Wakeup::wake));
    }

    @Override
    public void onMessage(Message message, byte[] pattern) {
        Set<Wakeup> woken = waiters.get(new String(message.getBody(), StandardCharsets.UTF_8));
        if (woken != null) {
            woken.forEach(Wakeup::wake);
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (container != null) {
            try {
                container.destroy();
            } catch (Exception e) {
                log.debug("Closing the release subscription failed", e);
            }
            container = null;
        }
        wakeAll();
    }

    /** One waiting thread's signal. */
    static final class Wakeup {

        private final Semaphore signal = new Semaphore(0);

        void wake() {
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
    }
}
