package dev.distlock.spring.metrics;

import dev.distlock.spring.semaphore.DistributedSemaphores;
import dev.distlock.spring.semaphore.DistributedSemaphores.Declaration;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The gauge {@value #PERMITS}, the permits this instance holds of each declared {@code @DistributedSemaphore}, tagged
 * {@code backend} and {@code semaphore}. Semaphores declared later get their gauge when they are declared.
 */
final class SemaphoreMeters implements SmartInitializingSingleton {

    static final String PERMITS = "distlock.semaphore.permits";

    private static final Logger log = LoggerFactory.getLogger(SemaphoreMeters.class);

    private final ObjectProvider<MeterRegistry> meters;
    private final ObjectProvider<DistributedSemaphores> semaphores;

    SemaphoreMeters(ObjectProvider<MeterRegistry> meters, ObjectProvider<DistributedSemaphores> semaphores) {
        this.meters = meters;
        this.semaphores = semaphores;
    }

    @Override
    public void afterSingletonsInstantiated() {
        DistributedSemaphores declared = semaphores.getIfAvailable();
        MeterRegistry registry = meters.getIfAvailable();
        if (declared == null || registry == null) {
            return;
        }
        declared.forEachDeclaration(declaration -> register(registry, declared, declaration));
    }

    private static void register(MeterRegistry registry, DistributedSemaphores declared, Declaration declaration) {
        String backend;
        try {
            backend = declared.backend(declaration);
        } catch (RuntimeException e) {
            log.debug("No registry for semaphore '{}': no gauge", declaration.name(), e);
            return;
        }
        // Registering an existing gauge again returns the one registered.
        Gauge.builder(PERMITS, declared, d -> d.permitsInUse(declaration))
                .description("Permits of a distributed semaphore this instance holds now")
                .tags("backend", backend, "semaphore", declaration.name())
                .register(registry);
    }
}
