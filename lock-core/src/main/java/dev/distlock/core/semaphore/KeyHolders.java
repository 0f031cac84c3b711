package dev.distlock.core.semaphore;

import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads who holds a semaphore's keys on the server and checks their permit-count notes against this declaration's,
 * so that declarations with different counts fail with {@link PermitCountConflictException} where they meet.
 */
final class KeyHolders {

    /** The category {@code docs/telemetry.md} lists for these messages. */
    private static final Logger log = LoggerFactory.getLogger(LeasedSemaphore.class);

    private final LockRegistry registry;
    private final String name;
    private final int permits;
    private final String note;
    /** False when the registry records no notes. Nothing is checked then. */
    private final boolean notes;
    /** False once the registry showed it cannot read a key's holder. Every acquisition queues then. */
    private volatile boolean readsHolders = true;

    KeyHolders(LockRegistry registry, String name, int permits, boolean notes) {
        this.registry = registry;
        this.name = name;
        this.permits = permits;
        this.note = LeasedSemaphore.NOTE_PREFIX + permits;
        this.notes = notes;
    }

    /**
     * Who holds {@code key}, read in two steps ({@link LockRegistry#holderOfLater}). The read is sent now where the
     * registry can, and {@code get()} gives what it found. Unknown after a passing failure, and on a registry that
     * cannot read holders (which is asked only once).
     */
    Supplier<HolderRead> readLater(String key) {
        if (!readsHolders) {
            return () -> HolderRead.UNKNOWN;
        }
        Supplier<Optional<LockHolder>> read;
        try {
            read = registry.holderOfLater(key);
        } catch (RuntimeException e) {
            HolderRead failed = unread(key, e);
            return () -> failed;
        }
        return () -> {
            try {
                return new HolderRead(true, read.get());
            } catch (RuntimeException e) {
                return unread(key, e);
            }
        };
    }

    private HolderRead unread(String key, RuntimeException e) {
        if (e instanceof UnsupportedOperationException) {
            readsHolders = false;
        } else {
            log.debug("Could not read the holder of '{}' for semaphore '{}'", key, name, e);
        }
        return HolderRead.UNKNOWN;
    }

    /**
     * Reads the note of whoever holds {@code key} and fails when it declares another permit count, or is no
     * semaphore's hold at all. Nobody holding the key, or a backend that cannot tell, passes.
     */
    void checkHolderOf(String key) {
        if (notes) {
            checkHolder(key, readLater(key).get().holder());
        }
    }

    /** As {@link #checkHolderOf}, for a holder of {@code key} read already. */
    void checkHolder(String key, Optional<LockHolder> holder) {
        if (!notes || holder.isEmpty()) {
            return;
        }
        Optional<String> theirs = holder.get().note();
        if (theirs.isPresent() && theirs.get().equals(note)) {
            return;
        }
        Integer declared = theirs.filter(text -> text.startsWith(LeasedSemaphore.NOTE_PREFIX))
                .map(text -> parse(text.substring(LeasedSemaphore.NOTE_PREFIX.length())))
                .orElse(null);
        throw new PermitCountConflictException(
                new PermitCountConflict(name, registry.backend(), permits, declared, key, holder.get()));
    }

    private static Integer parse(String digits) {
        try {
            return Integer.valueOf(digits);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
