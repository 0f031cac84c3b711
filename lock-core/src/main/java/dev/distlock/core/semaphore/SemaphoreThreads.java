package dev.distlock.core.semaphore;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where acquisitions run. A virtual thread per acquisition on Java 21 and later, pooled daemon threads before. An
 * acquisition's holds belong to their handles, never to its thread, so a pooled thread carries nothing into its next
 * task.
 */
final class SemaphoreThreads {

    static final ExecutorService EXECUTOR = newExecutor();

    private SemaphoreThreads() {}

    private static ExecutorService newExecutor() {
        try {
            return (ExecutorService) MethodHandles.publicLookup()
                    .findStatic(
                            Executors.class,
                            "newVirtualThreadPerTaskExecutor",
                            MethodType.methodType(ExecutorService.class))
                    .invoke();
        } catch (Throwable beforeJava21) {
            AtomicInteger threads = new AtomicInteger();
            return Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, "distlock-semaphore-" + threads.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });
        }
    }
}
