package dev.distlock.core.semaphore;

import dev.distlock.core.LockException;
import dev.distlock.core.LockHolder;
import java.util.OptionalInt;

/**
 * Two instances declared one semaphore name with different permit counts, or a lock that is no semaphore's holds one
 * of its keys. Found when an acquisition meets a hold of the other declaration on the server (a held permit or a held
 * queue). The acquisition takes nothing.
 */
public class PermitCountConflictException extends LockException {

    private final String semaphore;
    private final int permits;
    private final Integer otherPermits;

    PermitCountConflictException(PermitCountConflict conflict) {
        super(message(conflict));
        this.semaphore = conflict.semaphore();
        this.permits = conflict.permits();
        this.otherPermits = conflict.otherPermits();
    }

    private static String message(PermitCountConflict conflict) {
        String semaphore = conflict.semaphore();
        String backend = conflict.backend();
        int permits = conflict.permits();
        Integer otherPermits = conflict.otherPermits();
        String key = conflict.key();
        LockHolder holder = conflict.holder();
        if (otherPermits == null) {
            return "Semaphore '" + semaphore + "' (" + permits + " permits) on " + backend + " found its key '" + key
                    + "' held by a lock that is not a permit of this semaphore (holder: " + holder.holder()
                    + "). Another part of the application uses that key; give the semaphore another name.";
        }
        return "Semaphore '" + semaphore + "' on " + backend + " is declared with " + permits
                + " permits here, but with " + otherPermits + " by the holder of '" + key + "' (" + holder.holder()
                + "). Every instance must declare the same count: deploy one count everywhere, or give the new count"
                + " a new semaphore name.";
    }

    /** The semaphore's name. */
    public String semaphore() {
        return semaphore;
    }

    /** The permit count this instance declared. */
    public int permits() {
        return permits;
    }

    /** The count the other holder declared. Empty when the key was held by something that is not a permit. */
    public OptionalInt otherPermits() {
        return otherPermits == null ? OptionalInt.empty() : OptionalInt.of(otherPermits);
    }
}
