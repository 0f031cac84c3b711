package dev.distlock.spring.actuate;

import dev.distlock.core.LockHolder;
import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.spring.semaphore.DistributedSemaphores;
import dev.distlock.spring.semaphore.DistributedSemaphores.Declaration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The semaphore part of the {@code distributedlocks} endpoint, with each declared semaphore, the permits this
 * instance holds, and the holders on the backend.
 */
public final class SemaphoreSection {

    private final Supplier<DistributedSemaphores> semaphores;

    /** @param semaphores the declared semaphores, or a supplier of null without the starter's aspect */
    public SemaphoreSection(Supplier<DistributedSemaphores> semaphores) {
        this.semaphores = semaphores;
    }

    /** A section that shows no semaphores. */
    static SemaphoreSection none() {
        return new SemaphoreSection(() -> null);
    }

    /** The declared semaphores, by declared name, then by key value. */
    public List<Semaphore> semaphores() {
        DistributedSemaphores declared = semaphores.get();
        List<Semaphore> listed = new ArrayList<>();
        if (declared == null) {
            return listed;
        }
        for (Declaration declaration : declared.declarations()) {
            Map<String, LeasedSemaphore> known;
            try {
                known = declared.semaphoresOf(declaration);
            } catch (RuntimeException e) { // no registry for it, or a bad name
                listed.add(Semaphore.failed(declaration, e));
                continue;
            }
            known.forEach((name, semaphore) -> listed.add(semaphoreOf(declared, declaration, name, semaphore)));
        }
        return listed;
    }

    private static Semaphore semaphoreOf(
            DistributedSemaphores declared, Declaration declaration, String name, LeasedSemaphore semaphore) {
        List<PermitHolder> holders = List.of();
        String error = null;
        try {
            holders = semaphore.holders().stream().map(PermitHolder::of).toList();
        } catch (RuntimeException e) { // the backend cannot tell or does not answer
            error = e.getMessage();
        }
        return new Semaphore(
                name,
                declaration.name(),
                semaphore.backend(),
                declaration.permits(),
                declared.permitsInUse(name),
                holders,
                error);
    }

    /**
     * One declared semaphore, with its permit count, the permits this instance holds now, and the holders of permits
     * on the backend, whichever instance. {@code error} is set when the backend could not tell.
     */
    public record Semaphore(
            String name,
            String declaredName,
            String backend,
            int permits,
            int permitsHeldHere,
            List<PermitHolder> holders,
            String error) {

        static Semaphore failed(Declaration declaration, RuntimeException e) {
            return new Semaphore(
                    declaration.name(), declaration.name(), null, declaration.permits(), 0, List.of(), e.getMessage());
        }
    }

    /** The holder of one permit, with the permit's key, the holder, its token and lease left (null for sessions). */
    public record PermitHolder(String key, String holder, long token, String leaseLeft) {

        static PermitHolder of(LockHolder holder) {
            return new PermitHolder(
                    holder.key(),
                    holder.holder(),
                    holder.token().value(),
                    holder.leaseLeft().map(Duration::toString).orElse(null));
        }
    }
}
