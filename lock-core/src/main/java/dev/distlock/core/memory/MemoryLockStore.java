package dev.distlock.core.memory;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.ReadWriteLocks;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * The "server" of the in-memory backend, with the owners, leases and tokens of one JVM. Registries built over the
 * same store exclude each other like registries of different JVMs over one Redis. Tests simulate two owners so.
 *
 * <p>Tokens come from one counter for all keys, so they rise per key without a counter per key. Expiry follows
 * {@link System#nanoTime()}, which stands in for the server's clock.
 */
public final class MemoryLockStore {

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Slot> slots = new HashMap<>();
    private long lastToken;
    private final MemoryReadWriteStore readWrite = new MemoryReadWriteStore();

    /**
     * Takes the request's key, waiting until its deadline at most. Null when the wait ran out, or at once when the
     * request's guard key is held.
     */
    Grant tryAcquire(LockRequest request) throws InterruptedException {
        String key = request.key();
        String owner = request.owner().value();
        long leaseNanos = nanos(request.leaseTime());
        long waitNanos = request.deadline().remainingNanos();
        lock.lockInterruptibly();
        try {
            if (request.guardKey() != null && heldNow(slots.get(request.guardKey()))) {
                return null;
            }
            Slot slot = slots.computeIfAbsent(key, k -> new Slot(lock.newCondition()));
            slot.waiters++;
            try {
                long remaining = waitNanos;
                while (true) {
                    long now = System.nanoTime();
                    if (slot.owner == null || slot.expiresAt - now <= 0) {
                        slot.owner = owner;
                        slot.holder = request.holder();
                        slot.expiresAt = now + leaseNanos;
                        slot.token = ++lastToken;
                        return new Grant(slot.token, now);
                    }
                    if (remaining <= 0) {
                        return null;
                    }
                    // Woken by a release. The slice ends with the holder's lease, so expiry needs no wake-up.
                    long slice = Math.min(remaining, slot.expiresAt - now);
                    long left = slot.freed.awaitNanos(slice);
                    remaining -= slice - Math.max(0, left);
                }
            } finally {
                slot.waiters--;
                dropIfIdle(key, slot);
            }
        } finally {
            lock.unlock();
        }
    }

    boolean renew(String key, String owner, long leaseNanos) {
        lock.lock();
        try {
            Slot slot = slots.get(key);
            long now = System.nanoTime();
            if (slot == null || !owner.equals(slot.owner) || slot.expiresAt - now <= 0) {
                return false;
            }
            slot.expiresAt = now + leaseNanos;
            return true;
        } finally {
            lock.unlock();
        }
    }

    boolean release(String key, String owner) {
        return free(key, owner::equals);
    }

    /**
     * Ends the lease of {@code key} now, whoever holds it, as if it had expired. An operator's force-release does
     * this, and tests use it to make a holder lose its lease.
     *
     * @return true when a live lease was ended
     */
    public boolean expire(String key) {
        return free(key, anyOwner -> true);
    }

    /** Frees {@code key} if its owner matches. True when the lease was live. */
    private boolean free(String key, Predicate<String> ownerMatches) {
        lock.lock();
        try {
            Slot slot = slots.get(key);
            if (slot == null || slot.owner == null || !ownerMatches.test(slot.owner)) {
                return false;
            }
            boolean live = slot.expiresAt - System.nanoTime() > 0;
            slot.owner = null;
            slot.freed.signal();
            dropIfIdle(key, slot);
            return live;
        } finally {
            lock.unlock();
        }
    }

    /** Who holds {@code key} now, or null when nobody does. */
    Held holder(String key) {
        lock.lock();
        try {
            Slot slot = slots.get(key);
            if (!heldNow(slot)) {
                return null;
            }
            return new Held(slot.holder, slot.token, Math.max(1, slot.expiresAt - System.nanoTime()));
        } finally {
            lock.unlock();
        }
    }

    /** Whether an owner whose lease has not run out holds {@code slot}. Called holding the store's lock. */
    private static boolean heldNow(Slot slot) {
        return slot != null && slot.owner != null && slot.expiresAt - System.nanoTime() > 0;
    }

    /** The read/write locks' side of this store, shared by the registries built over it. */
    MemoryReadWriteStore readWrite() {
        return readWrite;
    }

    /**
     * Read/write locks kept in this store, for a registry of another backend built over it, such as a test backend
     * that steers plain locks itself. Registries whose read/write locks come from one store exclude each other.
     */
    public ReadWriteLocks readWriteLocks(RegistryOptions options) {
        return new ReadWriteLocks(
                new MemoryReadWriteBackend(
                        readWrite, LockMode.WRITE, options.writerGraceOr(RegistryOptions.DEFAULT_WRITER_GRACE)),
                new MemoryReadWriteBackend(readWrite, LockMode.READ, Duration.ZERO),
                options);
    }

    /** Keys held or waited for. Expired holds that nobody released count until touched again. */
    public int size() {
        lock.lock();
        try {
            return slots.size();
        } finally {
            lock.unlock();
        }
    }

    private void dropIfIdle(String key, Slot slot) {
        if (slot.waiters == 0 && (slot.owner == null || slot.expiresAt - System.nanoTime() <= 0)) {
            slots.remove(key, slot);
        }
    }

    /** A granted lease's token and the store's time of the grant. */
    record Grant(long token, long grantedAtNanos) {}

    /** The current holder of a key, with its description, token and nanoseconds of lease left. */
    record Held(String holder, long token, long leaseLeftNanos) {}

    private static final class Slot {
        final Condition freed;
        String owner;
        String holder;
        long expiresAt;
        long token;
        int waiters;

        Slot(Condition freed) {
            this.freed = freed;
        }
    }

    static long nanos(java.time.Duration duration) {
        return Math.min(duration.toNanos(), TimeUnit.DAYS.toNanos(365L * 100));
    }
}
