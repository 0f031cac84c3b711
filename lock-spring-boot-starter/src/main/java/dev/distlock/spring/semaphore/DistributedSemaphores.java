package dev.distlock.spring.semaphore;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.spring.DistributedSemaphore;
import dev.distlock.spring.aspect.LockAnnotationParser;
import dev.distlock.spring.aspect.LockRegistries;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.springframework.beans.factory.BeanFactory;

/**
 * The semaphores the application declared with {@link DistributedSemaphore}, and how many permits of each this
 * instance holds now, for meters and the actuator endpoint. Who holds permits on other instances comes from the
 * server ({@link LeasedSemaphore#holders()}).
 */
public final class DistributedSemaphores {

    /**
     * One declared semaphore.
     *
     * @param name the semaphore's name as declared
     * @param permits its permit count
     * @param keyed true when a key expression makes one semaphore per value, named {@code name:value}
     * @param registry the registry's bean name, empty for the only (or primary) one
     * @param method the first method that declared it, as {@code Class.method()}
     */
    public record Declaration(String name, int permits, boolean keyed, String registry, String method) {}

    private final BeanFactory beanFactory;
    private final Map<String, Declaration> declarations = new ConcurrentHashMap<>();
    private final LockRegistries registries;
    /** The semaphores in use or declared without a key, by semaphore name. */
    private final Map<String, InUse> semaphores = new ConcurrentHashMap<>();

    private final List<Consumer<Declaration>> listeners = new CopyOnWriteArrayList<>();

    private record InUse(Declaration declaration, LeasedSemaphore semaphore, AtomicInteger permits) {}

    DistributedSemaphores(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
        this.registries = new LockRegistries(beanFactory);
    }

    /** The declared semaphores, by name. */
    public List<Declaration> declarations() {
        return List.copyOf(new TreeMap<>(declarations).values());
    }

    /**
     * Tells {@code listener} of every declaration made so far, now, and of each later one (a bean created after
     * start-up declares its semaphores then). A declaration made while this runs may be told twice.
     */
    public void forEachDeclaration(Consumer<Declaration> listener) {
        listeners.add(listener);
        declarations().forEach(listener);
    }

    /**
     * The semaphores of {@code declaration} this instance knows, by name. That is the declared one, or for a keyed
     * declaration those of which this instance holds permits now.
     */
    public Map<String, LeasedSemaphore> semaphoresOf(Declaration declaration) {
        if (!declaration.keyed()) {
            return Map.of(
                    declaration.name(), inUse(declaration, declaration.name()).semaphore());
        }
        Map<String, LeasedSemaphore> found = new TreeMap<>();
        semaphores.forEach((name, inUse) -> {
            if (inUse.declaration().equals(declaration)) {
                found.put(name, inUse.semaphore());
            }
        });
        return new LinkedHashMap<>(found);
    }

    /** Permits of the semaphore {@code name} (the declared name plus any key value) this instance holds now. */
    public int permitsInUse(String name) {
        InUse inUse = semaphores.get(name);
        return inUse == null ? 0 : inUse.permits().get();
    }

    /** Permits of every semaphore of {@code declaration} this instance holds now. */
    public int permitsInUse(Declaration declaration) {
        int sum = 0;
        for (InUse inUse : semaphores.values()) {
            if (inUse.declaration().equals(declaration)) {
                sum += inUse.permits().get();
            }
        }
        return sum;
    }

    /** The backend of the registry a declaration uses. */
    public String backend(Declaration declaration) {
        return registry(declaration).backend();
    }

    void declare(SemaphoreMethod method, String where) {
        Declaration declared = new Declaration(
                method.name(),
                method.permits(),
                method.keyed(),
                method.registry(),
                LockAnnotationParser.describe(method.method()));
        Declaration first = declarations.putIfAbsent(declared.name(), declared);
        if (first != null
                && (first.permits() != declared.permits()
                        || first.keyed() != declared.keyed()
                        || !first.registry().equals(declared.registry()))) {
            throw new IllegalArgumentException(where + " declares semaphore '" + declared.name() + "' with "
                    + describe(declared) + ", but " + first.method() + " declares it with " + describe(first)
                    + ". Declare one semaphore the same way everywhere, or give them different names.");
        }
        if (first == null) {
            listeners.forEach(listener -> listener.accept(declared));
        }
    }

    /** The semaphore of one call. */
    LeasedSemaphore semaphore(SemaphoreMethod method, String name) {
        Declaration declaration = declarations.get(method.name());
        if (!declaration.keyed()) {
            return inUse(declaration, name).semaphore();
        }
        InUse known = semaphores.get(name);
        return known != null ? known.semaphore() : LeasedSemaphore.of(registry(declaration), name, method.permits());
    }

    /** Counts {@code permits} of {@code semaphore} as held by this instance until {@link #released}. */
    void acquired(SemaphoreMethod method, LeasedSemaphore semaphore, int permits) {
        Declaration declaration = declarations.get(method.name());
        semaphores.compute(semaphore.name(), (name, inUse) -> {
            InUse counted = inUse != null ? inUse : new InUse(declaration, semaphore, new AtomicInteger());
            counted.permits().addAndGet(permits);
            return counted;
        });
    }

    void released(LeasedSemaphore semaphore, int permits) {
        semaphores.computeIfPresent(semaphore.name(), (name, inUse) -> {
            int left = inUse.permits().addAndGet(-permits);
            // Keyed semaphores are forgotten when idle, so that their names do not pile up.
            return left <= 0 && inUse.declaration().keyed() ? null : inUse;
        });
    }

    private InUse inUse(Declaration declaration, String name) {
        return semaphores.computeIfAbsent(
                name,
                key -> new InUse(
                        declaration,
                        LeasedSemaphore.of(registry(declaration), key, declaration.permits()),
                        new AtomicInteger()));
    }

    private LockRegistry registry(Declaration declaration) {
        return registries.named(declaration.registry(), () -> "@DistributedSemaphore on " + declaration.method());
    }

    private static String describe(Declaration declaration) {
        List<String> parts = new ArrayList<>();
        parts.add(declaration.permits() + " permits");
        parts.add(declaration.keyed() ? "a key" : "no key");
        if (!declaration.registry().isEmpty()) {
            parts.add("registry '" + declaration.registry() + "'");
        }
        return String.join(", ", parts);
    }
}
