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
 * Acquisitions for callers that must not block: each runs on a thread of its own (a virtual
 * thread on Java 21 and later, a pooled daemon thread before), and its hold belongs to the handle
 * it completes with. Cancelling the future abandons the attempt: one still waiting at the key's local
 * gate ends at once without asking the server ({@link Abandonment}); one already asking the server goes
 * on until it is granted or its wait runs out, and a grant that arrives after the cancellation is
 * released at once. Interrupting a server call instead could leave a hold on the server with nobody to
 * release it (a Redis grant whose reply the interrupted attempt never read), until its lease ran out.
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
