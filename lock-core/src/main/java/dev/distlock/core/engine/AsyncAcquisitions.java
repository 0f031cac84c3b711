package dev.distlock.core.engine;

import dev.distlock.core.LockHandle;
import dev.distlock.core.spi.BackendLease;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Acquisitions for callers that must not block. Each runs on a thread of its own, and its hold belongs to the handle
 * it completes with. Cancelling the future abandons the attempt as {@code docs/internals/engine.md} describes.
 */
final class AsyncAcquisitions implements AutoCloseable {

    private final ExecutorService executor;

    AsyncAcquisitions(String backend) {
        this.executor = newExecutor(backend);
    }

    <L extends BackendLease> CompletableFuture<Optional<LockHandle>> acquire(
            Acquirer<L> acquirer, Acquisition acquisition) {
        CompletableFuture<Optional<LockHandle>> result = new CompletableFuture<>();
        Abandonment abandonment = new Abandonment();
        result.whenComplete((handle, error) -> {
            if (result.isCancelled()) {
                abandonment.abandon();
            }
        });
        executor.submit(() -> {
            try {
                Optional<LockHandle> handle =
                        acquirer.acquire(acquisition.abandonable(abandonment)).map(EngineHandle::new);
                if (!result.complete(handle)) {
                    handle.ifPresent(LockHandle::close);
                }
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    private static ExecutorService newExecutor(String backend) {
        try {
            Object factory = MethodHandles.publicLookup()
                    .findStatic(
                            Executors.class,
                            "newVirtualThreadPerTaskExecutor",
                            MethodType.methodType(ExecutorService.class))
                    .invoke();
            return (ExecutorService) factory;
        } catch (Throwable beforeJava21) {
            AtomicInteger threads = new AtomicInteger();
            return Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, "distlock-" + backend + "-async-" + threads.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });
        }
    }
}
