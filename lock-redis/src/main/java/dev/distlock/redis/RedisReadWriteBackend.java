package dev.distlock.redis;

import dev.distlock.core.FencingToken;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.ReadWriteLocks;
import dev.distlock.core.spi.ReadWriteOwners;
import dev.distlock.core.spi.WriterGrace;
import dev.distlock.redis.LockScripts.AcquireReply;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One side (read or write) of Redis read/write locks. Every operation is one run of {@code read-write.lua} on the key's
 * structure in one hash tag ({@link Keys}). Waiters sleep until a release message or until the nearest lease or intent
 * in their way ends. A waiting writer refreshes its intent at least every {@link #INTENT_REFRESH} and withdraws it when
 * it stops waiting.
 */
final class RedisReadWriteBackend implements LockBackend<RedisReadWriteBackend.Lease> {

    private static final String SCRIPT = "read-write.lua";
    static final LuaScript<AcquireReply> ACQUIRE =
            LuaScript.array(SCRIPT, values -> AcquireReply.readPair(values, SCRIPT));
    static final LuaScript<Boolean> CHANGE = LuaScript.yesNo(SCRIPT);

    /** How long a waiting writer holds new readers back without refreshing its intent. */
    static final Duration INTENT = Duration.ofSeconds(3);

    static final Duration INTENT_REFRESH = INTENT.dividedBy(3);

    private static final byte[] INTENT_MILLIS = LockScripts.millis(INTENT);
    /** The intent of a writer in its grace. It waits, and new readers do not queue behind it. */
    private static final byte[] NO_INTENT = LockScripts.bytes("0");

    private static final byte[] CHANNEL = LockScripts.bytes(LockKey.RELEASE_CHANNEL);

    private final RedisEndpoint endpoint;
    private final ReleaseSubscriber subscriber;
    /** This registry's place in a key's queue, as a plain lock's waiter takes it with the default re-check. */
    private final LockScripts.WaitQueue waitQueue;

    private final KeyWait wait;
    private final Duration commandTimeout;
    private final LockMode mode;
    private final byte[] modeArg;
    /** The writer's grace, zero on the read side. */
    private final Duration writerGrace;

    RedisReadWriteBackend(
            RedisEndpoint endpoint,
            ReleaseSubscriber subscriber,
            CallLimits limits,
            LockMode mode,
            Duration writerGrace) {
        this.endpoint = endpoint;
        this.subscriber = subscriber;
        this.waitQueue = subscriber.waitQueue(RedisLockBackend.queuePlace(RedisLockBackend.RECHECK));
        this.wait = new KeyWait(endpoint, subscriber, limits);
        this.commandTimeout = limits.commandTimeout();
        this.mode = mode;
        this.modeArg = LockScripts.bytes(mode == LockMode.READ ? "r" : "w");
        this.writerGrace = writerGrace;
    }

    /** Read/write locks over the registry's endpoint and release subscription, which stay the registry's to close. */
    static ReadWriteLocks locks(
            RedisEndpoint endpoint, ReleaseSubscriber subscriber, CallLimits limits, RegistryOptions options) {
        return new ReadWriteLocks(
                new RedisReadWriteBackend(
                        endpoint,
                        subscriber,
                        limits,
                        LockMode.WRITE,
                        options.writerGraceOr(RegistryOptions.DEFAULT_WRITER_GRACE)),
                new RedisReadWriteBackend(endpoint, subscriber, limits, LockMode.READ, Duration.ZERO),
                options);
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public String address() {
        return endpoint.address();
    }

    @Override
    public int maxKeyLength() {
        return RedisLockBackend.MAX_KEY_LENGTH;
    }

    @Override
    public Optional<Lease> tryAcquire(LockRequest request) throws InterruptedException {
        return wait.acquire(request, new SideAttempts(request));
    }

    /**
     * Attempts on one side of a read/write key with {@code read-write.lua acquire}, withdrawn by its release. A waiting
     * writer registers its intent once its grace has ended, and withdraws it when it stops waiting.
     */
    private final class SideAttempts implements KeyWait.Attempts<Lease> {

        private final LockRequest request;
        private final Keys keys;
        private final byte[] owner;
        private final WriterGrace grace;
        /** Whether an attempt went out with an intent, which the writer withdraws when it stops waiting. */
        private volatile boolean intentSent;

        SideAttempts(LockRequest request) {
            this.request = request;
            this.keys = Keys.of(request.key());
            this.owner = LockScripts.ownerBytes(request.owner());
            this.grace = WriterGrace.start(writerGrace);
        }

        @Override
        public String releaseMessage() {
            return keys.message();
        }

        @Override
        public ScriptCall<AcquireReply> acquire(boolean willWait) {
            boolean intent = willWait && mode == LockMode.WRITE && !grace.isOpen();
            intentSent |= intent;
            return RedisReadWriteBackend.this.acquire(
                    request, keys, owner, willWait, intent ? INTENT_MILLIS : NO_INTENT);
        }

        @Override
        public Lease granted(AcquireReply reply, long sentAtNanos) {
            return new Lease(keys, owner, FencingToken.of(reply.token()), sentAtNanos);
        }

        /**
         * Until the nearest lease or intent in the way ends, or {@link #INTENT_REFRESH} or the re-check if sooner. A
         * writer in its grace looks again when the grace ends at the latest, to register its intent.
         */
        @Override
        public long recheckNanos(AcquireReply refused) {
            long slice = Math.min(INTENT_REFRESH.toNanos(), RedisLockBackend.RECHECK.toNanos());
            return grace.cap(Math.min(slice, TimeUnit.MILLISECONDS.toNanos(Math.max(1, refused.holderLeaseMillis()))));
        }

        @Override
        public ScriptCall<Boolean> withdraw() {
            return release(keys, owner);
        }

        @Override
        public boolean withdrawsAtOnce() {
            return true; // read/write locks free a lost attempt at once, before the next one goes out
        }

        @Override
        public boolean attemptsOnRelease() {
            return false;
        }

        @Override
        public void stoppedWaiting() {
            if (intentSent) {
                // Not waited for, as new readers are held back at most until the intent ends anyway.
                endpoint.send(RedisReadWriteBackend.this.withdraw(keys, owner));
            }
        }
    }

    @Override
    public boolean renew(Lease lease, Duration leaseTime) {
        return endpoint.send(call(CHANGE, lease.keys(), "renew", lease.owner(), LockScripts.millis(leaseTime)))
                .await(commandTimeout);
    }

    @Override
    public boolean release(Lease lease) {
        // At once, as the other side of a read/write key is likely waiting for this.
        return endpoint.send(release(lease.keys(), lease.owner())).awaitUninterruptibly(commandTimeout);
    }

    /**
     * A waiting attempt puts this registry's wake-up channel in the key's queue once the registry listens on it, so
     * that a release wakes the registries that wait for this key rather than every registry.
     */
    private ScriptCall<AcquireReply> acquire(
            LockRequest request, Keys keys, byte[] owner, boolean willWait, byte[] intentMillis) {
        LockScripts.WaitQueue queue = subscriber.placeFor(willWait, waitQueue);
        return call(
                ACQUIRE,
                keys,
                "acquire",
                owner,
                LockScripts.millis(request.leaseTime()),
                LockScripts.bytes(willWait ? "1" : "0"),
                intentMillis,
                LockScripts.bytes(request.holder()),
                LockScripts.bytes(request.owner().thread() == 0 ? "" : ReadWriteOwners.threadPrefix(request.owner())),
                queue.channel(),
                queue.lasts());
    }

    private ScriptCall<Boolean> release(Keys keys, byte[] owner) {
        return call(CHANGE, keys, "release", owner, CHANNEL, keys.messageBytes());
    }

    private ScriptCall<Boolean> withdraw(Keys keys, byte[] owner) {
        return call(CHANGE, keys, "withdraw", owner, CHANNEL, keys.messageBytes());
    }

    private <R> ScriptCall<R> call(LuaScript<R> script, Keys keys, String operation, byte[] owner, byte[]... rest) {
        byte[][] args = new byte[3 + rest.length][];
        args[0] = LockScripts.bytes(operation);
        args[1] = modeArg;
        args[2] = owner;
        System.arraycopy(rest, 0, args, 3, rest.length);
        return new ScriptCall<>(script, keys.key(), keys.names(), args);
    }

    /**
     * The Redis keys of one read/write lock, beside (never equal to) the plain lock's key of the same key and in its
     * hash tag. They are a hash with the writer and the fence, a sorted set of readers, a sorted set of waiting writers
     * and the key's queue of waiting registries.
     *
     * @param message the hash's name, which a release publishes and waiters listen for
     */
    record Keys(String key, String message, byte[] messageBytes, byte[][] names) {

        static Keys of(String fullKey) {
            String hash = LockKey.of(fullKey).name() + ":rw";
            return new Keys(fullKey, hash, LockScripts.bytes(hash), new byte[][] {
                LockScripts.bytes(hash),
                LockScripts.bytes(hash + ":readers"),
                LockScripts.bytes(hash + ":writers"),
                LockScripts.bytes(hash + ":line")
            });
        }
    }

    /** A read or write hold granted by Redis. */
    record Lease(Keys keys, byte[] owner, FencingToken token, long grantRequestedAtNanos) implements BackendLease {

        @Override
        public String key() {
            return keys.key();
        }
    }
}
