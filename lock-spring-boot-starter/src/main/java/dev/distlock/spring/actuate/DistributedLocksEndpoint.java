package dev.distlock.spring.actuate;

import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;

/**
 * The {@code distributedlocks} Actuator endpoint. {@code /actuator/distributedlocks} lists the locks this instance
 * holds, who leads each leadership name it campaigns for or observes ({@link LeadershipSection}), and the declared
 * semaphores ({@link SemaphoreSection}). {@code /{key}} tells who holds a key on the backend, whichever instance.
 * {@code DELETE /{key}} force-releases a key held by a crashed or stuck instance. The delete is off unless the
 * application allows it ({@code management.endpoint.distributedlocks.access=unrestricted}). It is safe with fencing,
 * since the next holder gets a larger token and a resource that checks tokens refuses the evicted holder's late
 * writes. Keys are as the application names them, without the key prefix.
 */
@Endpoint(id = "distributedlocks", defaultAccess = Access.READ_ONLY)
public class DistributedLocksEndpoint {

    private final Map<String, LockRegistry> registries;
    private final LockStatistics statistics;
    private final LeadershipSection leadership;
    private final SemaphoreSection semaphores;

    /** @param registries the registries by bean name */
    public DistributedLocksEndpoint(Map<String, LockRegistry> registries, LockStatistics statistics) {
        this(registries, statistics, LeadershipSection.none());
    }

    /**
     * @param registries the registries by bean name
     * @param leadership the leaders to show
     */
    public DistributedLocksEndpoint(
            Map<String, LockRegistry> registries, LockStatistics statistics, LeadershipSection leadership) {
        this(registries, statistics, leadership, SemaphoreSection.none());
    }

    /**
     * @param registries the registries by bean name
     * @param leadership the leaders to show
     * @param semaphores the declared semaphores to show
     */
    public DistributedLocksEndpoint(
            Map<String, LockRegistry> registries,
            LockStatistics statistics,
            LeadershipSection leadership,
            SemaphoreSection semaphores) {
        this.registries = Map.copyOf(registries);
        this.statistics = statistics;
        this.leadership = leadership;
        this.semaphores = semaphores;
    }

    /** The holds of this instance per registry, the leader of each leadership name, and the declared semaphores. */
    @ReadOperation
    public Locks locks() {
        return new Locks(
                perRegistry(registry -> new RegistryLocks(
                        registry.backend(),
                        statistics.leaseLosses(registry),
                        registry.holds().stream().map(Hold::of).toList())),
                leadership.leaders(),
                semaphores.semaphores());
    }

    /** Who holds {@code key} on each registry's backend. */
    @ReadOperation
    public KeyHolders holder(@Selector(match = Match.ALL_REMAINING) String[] key) {
        String lockKey = String.join("/", key);
        return new KeyHolders(lockKey, perRegistry(registry -> holderOn(registry, lockKey)));
    }

    /** Removes the lock on {@code key} whoever holds it. It is logged at WARN with the evicted holder. */
    @DeleteOperation
    public Releases forceRelease(@Selector(match = Match.ALL_REMAINING) String[] key) {
        String lockKey = String.join("/", key);
        return new Releases(lockKey, perRegistry(registry -> releaseOn(registry, lockKey)));
    }

    private static KeyHolder holderOn(LockRegistry registry, String key) {
        Optional<LockHolder> holder;
        try {
            holder = registry.holderOf(key);
        } catch (RuntimeException e) { // unsupported by the backend, unreachable, or a bad key
            return KeyHolder.failed(registry.backend(), e);
        }
        if (holder.isEmpty()) {
            return KeyHolder.free(registry.backend());
        }
        LockHolder found = holder.get();
        boolean here = registry.holds().stream()
                .anyMatch(hold -> hold.kind() == HoldInfo.Kind.EXCLUSIVE
                        && hold.key().equals(key)
                        && hold.token().equals(found.token()));
        return KeyHolder.held(registry.backend(), found, here);
    }

    private static Release releaseOn(LockRegistry registry, String key) {
        Optional<LockHolder> evicted;
        try {
            evicted = registry.holderOf(key);
        } catch (UnsupportedOperationException e) {
            evicted = Optional.empty();
        } catch (RuntimeException e) {
            return Release.failed(registry.backend(), e);
        }
        try {
            boolean released = registry.forceRelease(key);
            return Release.done(registry.backend(), released ? evicted : Optional.empty(), released);
        } catch (RuntimeException e) {
            return Release.failed(registry.backend(), e);
        }
    }

    private <T> Map<String, T> perRegistry(Function<LockRegistry, T> view) {
        Map<String, T> result = new LinkedHashMap<>();
        registries.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(entry -> result.put(entry.getKey(), view.apply(entry.getValue())));
        return result;
    }

    private static String format(Optional<Duration> duration) {
        return duration.map(Duration::toString).orElse(null);
    }

    /** The holds of this instance by registry bean name, and the leaders by leadership name. */
    public record Locks(
            Map<String, RegistryLocks> registries,
            Map<String, LeadershipSection.LeaderState> leaders,
            List<SemaphoreSection.Semaphore> semaphores) {}

    /** One registry's holds. {@code leaseLosses} counts since start. */
    public record RegistryLocks(String backend, long leaseLosses, List<Hold> holds) {}

    /**
     * One hold of this instance. Times are ISO-8601, and {@code leaseLeft} is null for session leases. {@code owner}
     * is the owning thread, or "handle" for a hold owned by its handle. {@code kind} is EXCLUSIVE for a plain lock,
     * or READ or WRITE for a side of a read/write lock.
     */
    public record Hold(
            String key,
            String backend,
            long token,
            String heldSince,
            String leaseLeft,
            boolean renewed,
            boolean valid,
            String owner,
            String kind) {

        static Hold of(HoldInfo info) {
            return new Hold(
                    info.key(),
                    info.backend(),
                    info.token().value(),
                    info.heldSince().toString(),
                    format(info.leaseLeft()),
                    info.renewed(),
                    info.valid(),
                    info.owner(),
                    info.kind().name());
        }
    }

    /** Who holds a key, by registry bean name. */
    public record KeyHolders(String key, Map<String, KeyHolder> registries) {}

    /**
     * The holder of a key on one registry's backend. It gives the holder's description (application@host pid N
     * thread T), token, and lease left (null for session leases). {@code thisInstance} is true when it is one of this
     * instance's holds, and {@code error} is set when the backend could not tell.
     */
    public record KeyHolder(
            String backend,
            boolean held,
            String holder,
            Long token,
            String leaseLeft,
            boolean thisInstance,
            String error) {

        static KeyHolder failed(String backend, RuntimeException e) {
            return new KeyHolder(backend, false, null, null, null, false, e.getMessage());
        }

        static KeyHolder free(String backend) {
            return new KeyHolder(backend, false, null, null, null, false, null);
        }

        static KeyHolder held(String backend, LockHolder found, boolean thisInstance) {
            return new KeyHolder(
                    backend,
                    true,
                    found.holder(),
                    found.token().value(),
                    format(found.leaseLeft()),
                    thisInstance,
                    null);
        }
    }

    /** The outcome of a force-release, by registry bean name. */
    public record Releases(String key, Map<String, Release> registries) {}

    /** A force-release on one registry, with the evicted holder and its token when a lock was removed. */
    public record Release(String backend, boolean released, String evictedHolder, Long evictedToken, String error) {

        static Release failed(String backend, RuntimeException e) {
            return new Release(backend, false, null, null, e.getMessage());
        }

        static Release done(String backend, Optional<LockHolder> evicted, boolean released) {
            return new Release(
                    backend,
                    released,
                    evicted.map(LockHolder::holder).orElse(null),
                    evicted.map(holder -> holder.token().value()).orElse(null),
                    null);
        }
    }
}
