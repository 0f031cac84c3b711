package dev.distlock.core.engine;

import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** The last step of closing an engine: closes the backend once no hold needs it, and tells who waits for that. */
final class Closing<L extends BackendLease> {

    /** How long a closed engine lets its last background releases run before it closes the backend under them. */
    private static final Duration LAST_RELEASES_BOUND = Duration.ofSeconds(30);

    private final LockBackend<L> backend;
    private final Releases<L> releases;
    /** Opens when every hold has ended, lingering ones included, and the backend is closed. */
    private final CountDownLatch closed = new CountDownLatch(1);

    Closing(LockBackend<L> backend, Releases<L> releases) {
        this.backend = backend;
        this.releases = releases;
    }

    /**
     * Closes the backend now when nothing needs it, or on a background thread once the {@code lingering} holds'
     * minimums and the last background releases have ended.
     */
    void start(List<Hold<L>> lingering) {
        if (lingering.isEmpty() && !releases.busy()) {
            closeBackend();
            return;
        }
        Thread thread = new Thread(
                () -> {
                    releases.endWhenMinimumOver(lingering);
                    releases.awaitBackground(LAST_RELEASES_BOUND);
                    closeBackend();
                },
                "distlock-" + backend.name() + "-closing");
        thread.setDaemon(true);
        thread.start();
    }

    boolean await(Duration timeout) throws InterruptedException {
        return closed.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void closeBackend() {
        try {
            backend.close();
        } finally {
            closed.countDown();
        }
    }
}
