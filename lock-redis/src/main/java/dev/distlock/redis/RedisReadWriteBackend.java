package dev.distlock.redis;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.ReadWriteLocks;
import dev.distlock.core.spi.ReadWriteOwners;
import dev.distlock.redis.LockScripts.AcquireReply;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One side (read or write) of Redis read/write locks: every operation is one run of {@code
 * read-write.lua} on the key's structure (a hash with the writer and the fence, a sorted set of
 * readers, a sorted set of waiting writers, all in one hash tag). Waiters sleep until a release
 * message or the nearest lease or intent in their way ends; a waiting writer refreshes its intent
 * at least every {@link #INTENT_REFRESH}, and withdraws it when it stops waiting.
 */
final class RedisReadWriteBackend implements LockBackend<RedisReadWriteBackend.Lease> {

    private static final String SCRIPT = "read-write.lua";
    static final LuaScript<AcquireReply> ACQUIRE =
            LuaScript.array(SCRIPT, values -> AcquireReply.readPair(values, SCRIPT));
    static final LuaScript<Boolean> CHANGE = LuaScript.yesNo(SCRIPT);

    /** How long a waiting writer holds new readers back without refreshing its intent. */
    static final Duration INTENT = Duration.ofSeconds(3);

    static final Duration INTENT_REFRESH = INTENT.dividedBy(3);

    private static final byte[] CHANNEL = LockScripts.bytes(LockKey.RELEASE_CHANNEL);

    private final RedisEndpoint endpoint;
    private final ReleaseSubscriber subscriber;
    private final Duration commandTimeout;
    private final LockMode mode;
    private final byte[] modeArg;

    RedisReadWriteBackend(
            RedisEndpoint endpoint, ReleaseSubscriber subscriber, Duration commandTimeout, LockMode mode) {
        this.endpoint = endpoint;
        this.subscriber = subscriber;
        this.commandTimeout = commandTimeout;
        this.mode = mode;
        this.modeArg = LockScripts.bytes(mode == LockMode.READ ? "r" : "w");
    }

    /** Read/write locks over the registry's endpoint and release subscription, which stay the registry's to close. */
    static ReadWriteLocks locks(
            RedisEndpoint endpoint, ReleaseSubscriber subscriber, Duration commandTimeout, RegistryOptions options) {
        return new ReadWriteLocks(
                new RedisReadWriteBackend(endpoint, subscriber, commandTimeout, LockMode.WRITE),
                new RedisReadWriteBackend(endpoint, subscriber, commandTimeout, LockMode.READ),
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
        Keys keys = Keys.of(request.key());
        byte[] owner = LockScripts.bytes(request.owner().value());
        Deadline deadline = request.deadline();
        boolean mayWait = !deadline.hasPassed();
        boolean granted = false;
        RideOut rideOut = new RideOut(endpoint.address(), request.key());
        try {
            Attempt attempt = null;
            try {
                attempt = attempt(request, keys, owner, mayWait, true);
            } catch (LockBackendException e) {
                if (!mayWait) {
                    throw e;
                }
                rideOut.failed(e, deadline); // a wait rides out transient failures (contract 8)
            }
            if (attempt != null && (attempt.lease() != null || !mayWait || deadline.hasPassed())) {
                granted = attempt.lease() != null;
                return Optional.ofNullable(attempt.lease());
            }
            awaitSubscription(deadline);
            ReleaseSubscriber.Wakeup<?> wakeup = subscriber.register(keys.message());
            try {
                while (true) {
                    // Registered before this attempt, so a release after it cannot go unnoticed.
                    try {
                        attempt = attempt(request, keys, owner, true, false);
                    } catch (LockBackendException e) {
                        rideOut.failed(e, deadline); // returns after a back-off, or throws when the wait is over
                        subscriber.ensureListening();
                        continue;
                    }
                    rideOut.answered();
                    if (attempt.lease() != null) {
                        granted = true;
                        return Optional.of(attempt.lease());
                    }
                    long slice = Math.min(deadline.remainingNanos(), INTENT_REFRESH.toNanos());
                    slice = Math.min(slice, TimeUnit.MILLISECONDS.toNanos(attempt.retryMillis()));
                    slice = Math.min(slice, RedisLockBackend.RECHECK.toNanos());
                    boolean woken = slice > 0 && wakeup.await(slice);
                    if (!woken && deadline.hasPassed()) {
                        return Optional.empty();
                    }
                }
            } finally {
                subscriber.unregister(keys.message(), wakeup);
            }
        } finally {
            if (!granted && mayWait && mode == LockMode.WRITE) {
                // Not waited for: new readers are held back at most until the intent ends anyway.
                endpoint.send(withdraw(keys, owner));
            }
        }
    }

    /** One acquisition script; {@code first} lets it go out in a batch (see {@link RedisEndpoint#sendBatched}). */
    private Attempt attempt(LockRequest request, Keys keys, byte[] owner, boolean willWait, boolean first)
            throws InterruptedException {
        ScriptCall<AcquireReply> call = acquire(request, keys, owner, willWait);
        PendingReply<AcquireReply> pending = first ? endpoint.sendBatched(call) : endpoint.send(call);
        AcquireReply reply;
        try {
            reply = pending.await(callTimeout(request.deadline()));
        } catch (RuntimeException e) {
            // The script may have run with the answer lost: free what it may have taken.
            endpoint.send(release(keys, owner));
            if (Thread.interrupted()) {
                throw new InterruptedException(
                        "Interrupted while acquiring lock '" + request.key() + "' on " + endpoint.address());
            }
            throw e;
        }
        if (!reply.granted()) {
            return new Attempt(null, Math.max(1, reply.holderLeaseMillis()));
        }
        return new Attempt(new Lease(keys, owner, FencingToken.of(reply.token()), pending.sentAtNanos()), 0);
    }

    private void awaitSubscription(Deadline deadline) throws InterruptedException {
        long limit = Math.min(deadline.remainingNanos(), commandTimeout.toNanos());
        try {
            subscriber.ensureListening().get(limit, TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // Waits then end at the nearest lease or intent in the way instead of at a message.
        }
    }

    private Duration callTimeout(Deadline deadline) {
        return Duration.ofNanos(
                Math.min(commandTimeout.toNanos(), deadline.remainingNanos() + RedisLockBackend.SLACK.toNanos()));
    }

    @Override
    public boolean renew(Lease lease, Duration leaseTime) {
        return endpoint.send(call(CHANGE, lease.keys(), "renew", lease.owner(), LockScripts.millis(leaseTime)))
                .await(commandTimeout);
    }

    @Override
    public boolean release(Lease lease) {
        // At once: a read/write key is shared, and the other side is likely waiting for this.
        return endpoint.send(release(lease.keys(), lease.owner())).await(commandTimeout);
    }

    private ScriptCall<AcquireReply> acquire(LockRequest request, Keys keys, byte[] owner, boolean willWait) {
        return call(
                ACQUIRE,
                keys,
                "acquire",
                owner,
                LockScripts.millis(request.leaseTime()),
                LockScripts.bytes(willWait ? "1" : "0"),
                LockScripts.millis(INTENT),
                LockScripts.bytes(request.holder()),
                LockScripts.bytes(request.owner().thread() == 0 ? "" : ReadWriteOwners.threadPrefix(request.owner())));
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
     * The Redis keys of one read/write lock, beside (never equal to) the plain lock's key of the
     * same key and in its hash tag.
     *
     * @param message the hash's name: what a release publishes and waiters listen for
     */
    record Keys(String key, String message, byte[] messageBytes, byte[][] names) {

        static Keys of(String fullKey) {
            String hash = LockKey.of(fullKey).name() + ":rw";
            return new Keys(fullKey, hash, LockScripts.bytes(hash), new byte[][] {
                LockScripts.bytes(hash), LockScripts.bytes(hash + ":readers"), LockScripts.bytes(hash + ":writers")
            });
        }
    }

    /** One attempt's outcome: the lease, or when to look again without a message. */
    private record Attempt(Lease lease, long retryMillis) {}

    /** A read or write hold granted by Redis. */
    record Lease(Keys keys, byte[] owner, FencingToken token, long grantRequestedAtNanos) implements BackendLease {

        @Override
        public String key() {
            return keys.key();
        }
    }
}
