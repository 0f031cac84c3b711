package dev.distlock.core.semaphore;

import dev.distlock.core.LockHolder;
import java.util.Optional;

/**
 * What a read of a key's holder found. Who holds it (an empty {@code holder}: nobody), unless it could not be read
 * ({@code known} false).
 */
record HolderRead(boolean known, Optional<LockHolder> holder) {

    static final HolderRead UNKNOWN = new HolderRead(false, Optional.empty());
    static final HolderRead NOBODY = new HolderRead(true, Optional.empty());

    boolean free() {
        return known && holder.isEmpty();
    }

    boolean held() {
        return known && holder.isPresent();
    }
}
