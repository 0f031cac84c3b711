package dev.distlock.core.spi;

import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The start of a write acquisition's wait in which it does not hold new readers back ({@link
 * RegistryOptions#writerGrace}). A backend starts one when a write acquisition begins; while it is open,
 * the writer's attempts take the key when it is free but register nothing that makes readers queue, and
 * every pause between attempts ends when the grace does, so the writer registers as soon as it closes.
 */
public final class WriterGrace {

    private static final long LONGEST_NANOS = TimeUnit.DAYS.toNanos(365);

    private final long closesAtNanos;

    private WriterGrace(long closesAtNanos) {
        this.closesAtNanos = closesAtNanos;
    }

    /** A grace of {@code grace} from now (closed at once when zero). */
    public static WriterGrace start(Duration grace) {
        long nanos = grace.compareTo(Duration.ofNanos(LONGEST_NANOS)) > 0 ? LONGEST_NANOS : grace.toNanos();
        return new WriterGrace(System.nanoTime() + nanos);
    }

    /** Whether the writer still lets new readers in. */
    public boolean isOpen() {
        return closesAtNanos - System.nanoTime() > 0;
    }

    /** {@code pauseNanos}, cut to what is left of the grace while it is open. */
    public long cap(long pauseNanos) {
        long left = closesAtNanos - System.nanoTime();
        return left > 0 ? Math.min(pauseNanos, left) : pauseNanos;
    }
}
