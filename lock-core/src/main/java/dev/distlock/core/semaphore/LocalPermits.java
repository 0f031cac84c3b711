package dev.distlock.core.semaphore;

import dev.distlock.core.LockRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The permits of one semaphore that the threads of one registry may be acquiring or holding at once. A fair local
 * semaphore of the declared count, taken before an acquisition asks the server, so a registry never has more
 * acquisitions at the server than the semaphore has permits. It also counts the slots this registry tries or holds,
 * so that its acquisitions try the others first. Reasons: {@code docs/internals/recipes.md}.
 */
final class LocalPermits {

    private static final Map<Key, LocalPermits> IN_USE = new ConcurrentHashMap<>();

    /** A registry (by identity), a semaphore name and its declared count. */
    private record Key(LockRegistry registry, String name, int permits) {

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key
                    && key.registry == registry
                    && key.permits == permits
                    && key.name.equals(name);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(registry) * 31 + name.hashCode() * 7 + permits;
        }
    }

    private final Key key;
    private final Semaphore free;
    /** Acquisitions under way and permits granted that use this entry. Guarded by {@link #IN_USE}'s entry. */
    private int users;
    /** Per slot, how many of this registry's acquisitions are trying it or hold it. Guarded by {@code this}. */
    private final int[] claims;

    private LocalPermits(Key key) {
        this.key = key;
        this.free = new Semaphore(key.permits(), true);
        this.claims = new int[key.permits()];
    }

    /** The entry of {@code semaphore}'s name and count on its registry, counted as used once more. */
    static LocalPermits use(LeasedSemaphore semaphore) {
        return IN_USE.compute(new Key(semaphore.registry(), semaphore.name(), semaphore.permits()), (key, existing) -> {
            LocalPermits local = existing != null ? existing : new LocalPermits(key);
            local.users++;
            return local;
        });
    }

    /**
     * Takes {@code count} local permits, in arrival order, waiting at most {@code waitNanos} (none: only when no
     * earlier thread waits and enough are free).
     */
    boolean take(int count, long waitNanos) throws InterruptedException {
        return free.tryAcquire(count, Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
    }

    /** Gives back {@code count} local permits taken and not handed to a granted permit. */
    void give(int count) {
        if (count > 0) {
            free.release(count);
        }
    }

    /** Counts {@code count} granted permits as users. Each ends with {@link #permitEnded}. */
    void permitsGranted(int count) {
        IN_USE.compute(key, (k, local) -> {
            local.users += count;
            return local;
        });
    }

    /** A granted permit of {@code slot} was given back or lost. Its local permit and its slot are free again. */
    void permitEnded(int slot) {
        unclaim(slot);
        free.release();
        unuse();
    }

    /**
     * Every slot once. First those no acquisition of this registry tries or holds, starting at a random one (so that
     * registries spread over the slots), then the others, starting at the same place.
     */
    synchronized List<Integer> slotsToTry() {
        int permits = claims.length;
        int first = ThreadLocalRandom.current().nextInt(permits);
        List<Integer> slots = new ArrayList<>(permits);
        List<Integer> claimed = new ArrayList<>();
        for (int i = 0; i < permits; i++) {
            int slot = (first + i) % permits;
            (claims[slot] == 0 ? slots : claimed).add(slot);
        }
        slots.addAll(claimed);
        return slots;
    }

    /** An acquisition of this registry tries {@code slot}, or was granted it. */
    synchronized void claim(int slot) {
        claims[slot]++;
    }

    /** The try of {@code slot} ended without a permit, or the permit was given back. */
    synchronized void unclaim(int slot) {
        claims[slot]--;
    }

    /** One use less. The entry goes once nothing uses it. */
    void unuse() {
        IN_USE.computeIfPresent(key, (k, local) -> --local.users == 0 ? null : local);
    }

    /** How many entries exist, for tests of what a churn leaves behind. */
    static int entries() {
        return IN_USE.size();
    }
}
