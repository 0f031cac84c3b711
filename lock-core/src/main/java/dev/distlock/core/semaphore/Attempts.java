package dev.distlock.core.semaphore;

import dev.distlock.core.LockHandle;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Waiting for and withdrawing asynchronous acquisitions of semaphore keys. */
final class Attempts {

    private Attempts() {}

    /**
     * The outcome of an asynchronous acquisition. When this thread is interrupted meanwhile, the acquisition is
     * withdrawn and the interrupt thrown.
     */
    static Optional<LockHandle> join(CompletableFuture<Optional<LockHandle>> attempt) throws InterruptedException {
        try {
            return attempt.get();
        } catch (InterruptedException e) {
            withdraw(attempt);
            throw e;
        } catch (ExecutionException e) {
            throw unchecked(e.getCause());
        }
    }

    /** Withdraws {@code attempt}. Cancelled when pending (contract 12 releases a late grant), released when granted. */
    static void withdraw(CompletableFuture<Optional<LockHandle>> attempt) {
        if (!attempt.cancel(false) && !attempt.isCompletedExceptionally()) {
            attempt.join().ifPresent(LockHandle::close);
        }
    }

    /** Throws {@code cause} when it is unchecked. Otherwise returns it wrapped, for the caller to throw. */
    static RuntimeException unchecked(Throwable cause) {
        if (cause instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(cause);
    }
}
