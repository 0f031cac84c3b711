package dev.distlock.core.spi;

/**
 * How a backend tells that two owners are the same thread of the same registry, which lets the
 * thread that holds a key's write lock take its read lock too (downgrade). Owner ids as stored
 * on the server are {@code registry:thread:hold}; two holds of one thread share the part before
 * the hold number.
 */
public final class ReadWriteOwners {

    private ReadWriteOwners() {}

    /** {@code registry:thread:}, the prefix every stored owner id of this thread starts with. */
    public static String threadPrefix(OwnerId owner) {
        return owner.registry() + ':' + owner.thread() + ':';
    }

    /** True when {@code storedOwner} (an {@link OwnerId#value()}) is a hold of {@code owner}'s thread. */
    public static boolean sameThread(String storedOwner, OwnerId owner) {
        return storedOwner != null && owner.thread() != 0 && storedOwner.startsWith(threadPrefix(owner));
    }

    /**
     * The rule for a read request: granted when the key's writer is a hold of the reader's own
     * thread (downgrade), or when there is no writer and no writer waits (writer preference).
     *
     * @param writer the stored owner of the key's write hold, null when none
     */
    public static boolean mayRead(String writer, boolean writerWaiting, OwnerId reader) {
        return sameThread(writer, reader) || (writer == null && !writerWaiting);
    }
}
