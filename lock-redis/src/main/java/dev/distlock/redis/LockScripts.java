package dev.distlock.redis;

import static dev.distlock.redis.LuaScript.asLong;
import static dev.distlock.redis.LuaScript.asText;

import dev.distlock.core.spi.OwnerId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The lock scripts and the calls that run them. Each call names its keys and arguments in one place, and each script
 * knows what its reply means. {@code lock-value.lua} and docs/internals/backends.md describe the key layout.
 */
final class LockScripts {

    /** How every lock script reads a lock key's value, sent before each one's text. */
    private static final String VALUE = "lock-value.lua";

    /** How the scripts that touch a lock's queue of waiting registries read and wake it, sent after {@link #VALUE}. */
    private static final String LINE = "waiters.lua";

    static final LuaScript<AcquireReply> ACQUIRE =
            LuaScript.integer("acquire.lua", AcquireReply::read).after(LINE).after(VALUE);
    static final LuaScript<Boolean> RENEW = LuaScript.yesNo("renew.lua").after(VALUE);
    static final LuaScript<Boolean> RELEASE =
            LuaScript.yesNo("release.lua").after(LINE).after(VALUE);
    static final LuaScript<Boolean> PASS =
            LuaScript.yesNo("pass.lua").after(LINE).after(VALUE);
    static final LuaScript<Boolean> RAISE_FENCE =
            LuaScript.yesNo("raise-fence.lua").after(VALUE);
    static final LuaScript<StoredHolder> HOLDER =
            LuaScript.array("holder.lua", StoredHolder::read).after(VALUE);

    static final List<LuaScript<?>> ALL = List.of(ACQUIRE, RENEW, RELEASE, PASS, RAISE_FENCE, HOLDER);

    private static final byte[] WAIT = bytes("1");
    private static final byte[] NO_WAIT = bytes("0");
    private static final byte[] NOBODY = new byte[0];
    private static final byte[] FORCE = bytes("force");

    private LockScripts() {}

    /**
     * Takes the lock for {@code owner} if free, without waiting for it. It asks no wake-up and takes no place in the
     * queue.
     */
    static ScriptCall<AcquireReply> acquire(LockKey key, byte[] owner, Duration lease, byte[] holder) {
        WaitQueue none = WaitQueue.NONE;
        return queueCall(ACQUIRE, key, owner, millis(lease), NO_WAIT, holder, none.channel(), none.lasts());
    }

    /**
     * Takes the lock for {@code owner} if free, else asks the holder's release to wake a waiter and,
     * when {@code queue} names a wake-up channel, puts that registry in the key's queue.
     */
    static ScriptCall<AcquireReply> acquireToWait(
            LockKey key, byte[] owner, Duration lease, byte[] holder, WaitQueue queue) {
        return queueCall(ACQUIRE, key, owner, millis(lease), WAIT, holder, queue.channel(), queue.lasts());
    }

    /**
     * Takes the lock for {@code owner} if it is free and nobody holds {@code guard}, without waiting. One script reads
     * both keys, so they must be on one server (or in one hash slot of a Cluster).
     */
    static ScriptCall<AcquireReply> acquireUnlessHeld(
            LockKey key, LockKey guard, byte[] owner, Duration lease, byte[] holder) {
        WaitQueue none = WaitQueue.NONE;
        return new ScriptCall<>(
                ACQUIRE, key.key(), new byte[][] {key.nameBytes(), key.queueBytes(), guard.nameBytes()}, new byte[][] {
                    owner, millis(lease), NO_WAIT, holder, none.channel(), none.lasts()
                });
    }

    /** The registry of {@code queue} leaves the key's queue, passing a wake-up on when the key is free. */
    static ScriptCall<Boolean> pass(LockKey key, WaitQueue queue) {
        return queueCall(PASS, key, queue.channel());
    }

    static ScriptCall<Boolean> renew(LockKey key, byte[] owner, Duration lease) {
        return call(RENEW, key, owner, millis(lease));
    }

    static ScriptCall<Boolean> release(LockKey key, byte[] owner) {
        return queueCall(RELEASE, key, owner);
    }

    /** Ends whoever's hold is there, for an operator. The fence rules of a release apply. */
    static ScriptCall<Boolean> evict(LockKey key) {
        return queueCall(RELEASE, key, NOBODY, FORCE);
    }

    static ScriptCall<Boolean> raiseFence(LockKey key, long token) {
        return call(RAISE_FENCE, key, bytes(Long.toString(token)));
    }

    static ScriptCall<StoredHolder> holder(LockKey key) {
        return call(HOLDER, key);
    }

    /**
     * A lease in whole milliseconds for the server, rounded up. The holder's own view of the lease is rounded down, so
     * the server never lets a lock go while its holder thinks it valid.
     */
    static byte[] millis(Duration lease) {
        long millis = lease.toMillis() + (lease.toNanos() % 1_000_000 == 0 ? 0 : 1);
        return bytes(Long.toString(Math.max(1, millis)));
    }

    /** The owner as stored on the server, {@link OwnerId#value()} in UTF-8. */
    static byte[] ownerBytes(OwnerId owner) {
        return bytes(owner.value());
    }

    static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    private static <R> ScriptCall<R> call(LuaScript<R> script, LockKey key, byte[]... args) {
        return new ScriptCall<>(script, key.key(), new byte[][] {key.nameBytes()}, args);
    }

    /** A call of a script that also reads or changes the key's queue ({@code waiters.lua}). */
    private static <R> ScriptCall<R> queueCall(LuaScript<R> script, LockKey key, byte[]... args) {
        return new ScriptCall<>(script, key.key(), new byte[][] {key.nameBytes(), key.queueBytes()}, args);
    }

    /**
     * Where a waiting registry hears that it is next, its wake-up channel, and how long its place in a key's queue
     * lasts after each attempt. {@link #NONE} takes no place. It is for a caller that does not wait, or whose registry
     * is not listening yet and waits for {@code distlock:released}.
     */
    record WaitQueue(byte[] channel, byte[] lasts) {

        static final WaitQueue NONE = new WaitQueue(new byte[0], bytes("0"));

        static WaitQueue of(String channel, Duration lasts) {
            return new WaitQueue(bytes(channel), millis(lasts));
        }
    }

    /**
     * What the acquire script answered. Either granted with a token, or held by another owner for {@code
     * holderLeaseMillis} more (-1 when that hold has no expiry).
     */
    record AcquireReply(boolean granted, long token, long holderLeaseMillis) {

        /** The script's one integer, the token when granted, else -2 minus the holder's PTTL. */
        static AcquireReply read(long reply) {
            return reply > 0 ? new AcquireReply(true, reply, 0) : new AcquireReply(false, 0, -2 - reply);
        }

        /** A pair {1, token} when granted, {0, ms to wait} when not (read-write.lua). */
        static AcquireReply readPair(List<?> values, String resource) {
            long value = asLong(values.get(1), resource);
            return asLong(values.get(0), resource) == 1
                    ? new AcquireReply(true, value, 0)
                    : new AcquireReply(false, 0, value);
        }
    }

    /** The hold stored in a lock key. {@code owner} is null when nobody holds it. */
    record StoredHolder(String owner, String holder, long token, long leaseLeftMillis) {

        static final StoredHolder NOBODY = new StoredHolder(null, "", 0, -1);

        static StoredHolder read(List<?> values) {
            if (values.isEmpty()) {
                return NOBODY;
            }
            return new StoredHolder(
                    asText(values.get(0)),
                    asText(values.get(1)),
                    asLong(values.get(2), "holder.lua"),
                    asLong(values.get(3), "holder.lua"));
        }

        boolean held() {
            return owner != null;
        }
    }
}
