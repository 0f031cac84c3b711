package dev.distlock.core.spi;

/**
 * Runs calls that must finish whatever the calling thread's interrupt flag says (a release in the
 * {@code finally} of an interrupted thread, {@code lock()}, a clean-up bounded by its own timeout),
 * and leaves the flag as it was or as an interrupt meanwhile set it. The one place the engine and
 * the backends write "run this uninterrupted, keep the flag".
 */
public final class Interrupts {

    private Interrupts() {}

    /** A call that may be interrupted. */
    @FunctionalInterface
    public interface InterruptibleCall<T> {
        T call() throws InterruptedException;
    }

    /**
     * Runs {@code call} until it returns, running it again whenever it ends with an {@link
     * InterruptedException}; sets the interrupt flag again at the end if such an interrupt came.
     * A flag already set when this starts is left to the call (an interruptible call ends at once
     * with it and is run again, with the flag cleared).
     */
    public static <T> T deferred(InterruptibleCall<T> call) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return call.call();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * As {@link #deferred}, with the interrupt flag cleared before the call starts, so that the call
     * is not cut short by an interrupt that came before it; the flag is set again at the end if it
     * was set before or an interrupt came meanwhile.
     */
    public static <T> T cleared(InterruptibleCall<T> call) {
        boolean interrupted = Thread.interrupted();
        try {
            return deferred(call);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
