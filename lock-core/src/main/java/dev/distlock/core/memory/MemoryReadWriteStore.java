package dev.distlock.core.memory;

import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OwnerId;
import dev.distlock.core.spi.ReadWriteOwners;
import dev.distlock.core.spi.WriterGrace;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The "server" of in-memory read/write locks. It keeps per key one writer, its readers and a count of the writers
 * waiting, and one token counter for all keys. Registries over one store exclude each other like registries of
 * different JVMs over one server. Expiry follows {@link System#nanoTime()}.
 *
 * <p>A write takes the next token of the counter. A read gets the counter's current value, which is at least the
 * key's latest write token and below its next one.
 */
final class MemoryReadWriteStore {

    private static final long FOREVER_NANOS = TimeUnit.DAYS.toNanos(365L * 100);

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Entry> entries = new HashMap<>();
    private long lastToken;

    /**
     * Takes the request's key on the {@code mode} side. The grant, or null when the wait ran out. A writer holds new
     * readers back only once {@code grace} has closed.
     */
    Grant acquire(LockRequest request, LockMode mode, WriterGrace grace) throws InterruptedException {
        String key = request.key();
        OwnerId owner = request.owner();
        long leaseNanos = Math.min(request.leaseTime().toNanos(), FOREVER_NANOS);
        long waitNanos = request.deadline().remainingNanos();
        lock.lockInterruptibly();
        try {
            Entry entry = entries.computeIfAbsent(key, k -> new Entry(lock.newCondition()));
            entry.waiters++;
            boolean intentRegistered = false;
            try {
                long deadline = System.nanoTime() + Math.min(waitNanos, FOREVER_NANOS);
                while (true) {
                    long now = System.nanoTime();
                    long wakeAt = entry.dropExpired(now);
                    if (mode == LockMode.WRITE ? entry.writeFree() : entry.readFree(owner)) {
                        return new Grant(grant(entry, mode, owner.value(), now + leaseNanos), now);
                    }
                    if (deadline - now <= 0) {
                        return null;
                    }
                    if (mode == LockMode.WRITE && !intentRegistered && !grace.isOpen()) {
                        // Writer preference. New readers queue behind a writer that waited past its grace.
                        entry.waitingWriters++;
                        intentRegistered = true;
                    }
                    entry.changed.awaitNanos(grace.cap(Math.min(deadline - now, wakeAt - now)));
                }
            } finally {
                if (intentRegistered && --entry.waitingWriters == 0) {
                    entry.changed.signalAll();
                }
                entry.waiters--;
                dropIfIdle(key, entry);
            }
        } finally {
            lock.unlock();
        }
    }

    private long grant(Entry entry, LockMode mode, String owner, long expiresAt) {
        if (mode == LockMode.WRITE) {
            entry.writer = owner;
            entry.writerExpiresAt = expiresAt;
            return ++lastToken;
        }
        entry.readers.put(owner, expiresAt);
        return lastToken == 0 ? ++lastToken : lastToken;
    }

    boolean renew(String key, LockMode mode, String owner, Duration lease) {
        lock.lock();
        try {
            Entry entry = entries.get(key);
            long now = System.nanoTime();
            if (entry == null || !entry.holds(mode, owner, now)) {
                return false;
            }
            long expiresAt = now + Math.min(lease.toNanos(), FOREVER_NANOS);
            if (mode == LockMode.WRITE) {
                entry.writerExpiresAt = expiresAt;
            } else {
                entry.readers.put(owner, expiresAt);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    boolean release(String key, LockMode mode, String owner) {
        lock.lock();
        try {
            Entry entry = entries.get(key);
            if (entry == null) {
                return false;
            }
            boolean live = entry.holds(mode, owner, System.nanoTime());
            boolean removed;
            if (mode == LockMode.WRITE) {
                removed = owner.equals(entry.writer);
                if (removed) {
                    entry.writer = null;
                }
            } else {
                removed = entry.readers.remove(owner) != null;
            }
            if (removed) {
                entry.changed.signalAll();
                dropIfIdle(key, entry);
            }
            return removed && live;
        } finally {
            lock.unlock();
        }
    }

    /** Ends every read and write lease of {@code key} as if they had run out, for tests of lease loss. */
    public void expire(String key) {
        lock.lock();
        try {
            Entry entry = entries.get(key);
            if (entry != null) {
                entry.writer = null;
                entry.readers.clear();
                entry.changed.signalAll();
                dropIfIdle(key, entry);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Keys held or waited for. Holds that ran out without release count until the key is touched again. */
    public int size() {
        lock.lock();
        try {
            return entries.size();
        } finally {
            lock.unlock();
        }
    }

    private void dropIfIdle(String key, Entry entry) {
        entry.dropExpired(System.nanoTime());
        if (entry.waiters == 0 && entry.writer == null && entry.readers.isEmpty()) {
            entries.remove(key, entry);
        }
    }

    /** A granted lease's token and the store's time of the grant. */
    record Grant(long token, long grantedAtNanos) {}

    private static final class Entry {
        final Condition changed;
        final Map<String, Long> readers = new HashMap<>();
        String writer;
        long writerExpiresAt;
        int waitingWriters;
        int waiters;

        Entry(Condition changed) {
            this.changed = changed;
        }

        boolean writeFree() {
            return writer == null && readers.isEmpty();
        }

        /** Free for a reader when no other thread writes or waits to write. */
        boolean readFree(OwnerId reader) {
            return ReadWriteOwners.mayRead(writer, waitingWriters > 0, reader);
        }

        boolean holds(LockMode mode, String owner, long now) {
            if (mode == LockMode.WRITE) {
                return owner.equals(writer) && writerExpiresAt - now > 0;
            }
            Long expiresAt = readers.get(owner);
            return expiresAt != null && expiresAt - now > 0;
        }

        /** Drops leases that ran out, and returns when the next one runs out (far ahead when none). */
        long dropExpired(long now) {
            long next = now + FOREVER_NANOS;
            if (writer != null) {
                if (writerExpiresAt - now <= 0) {
                    writer = null;
                } else {
                    next = writerExpiresAt;
                }
            }
            for (Iterator<Long> it = readers.values().iterator(); it.hasNext(); ) {
                long expiresAt = it.next();
                if (expiresAt - now <= 0) {
                    it.remove();
                } else if (expiresAt - next < 0) {
                    next = expiresAt;
                }
            }
            return next;
        }
    }
}
