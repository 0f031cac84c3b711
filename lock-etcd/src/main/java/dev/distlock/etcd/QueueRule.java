package dev.distlock.etcd;

import dev.distlock.core.spi.OwnerId;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.op.Op;
import java.util.List;

/**
 * Where a lock kind keeps a key's queue and which older entries hold an entry back. Entries are
 * ordered by create revision. An entry is granted when its reads find no entry but itself.
 */
interface QueueRule {

    /** The prefix all entries of {@code key}'s queue live under. */
    ByteSequence queue(String key);

    /** The usual name of {@code owner}'s entry for {@code key}, reused to keep etcd's index small. */
    ByteSequence entry(String key, OwnerId owner, long sessionLeaseId);

    /** A name for the entry when the usual one is taken, with a number unique within the registry. */
    ByteSequence entry(String key, long sessionLeaseId, long number);

    /**
     * The reads in the transaction that writes a new entry. The first read starts with the new
     * entry itself. Every entry found after it holds the new entry back, and the first is watched.
     */
    List<Op> readsAfterPut(ByteSequence queue);

    /** The reads of what still holds back the entry created at {@code entryRevision}, nearest first. */
    List<Op> readsBefore(ByteSequence queue, long entryRevision);
}
