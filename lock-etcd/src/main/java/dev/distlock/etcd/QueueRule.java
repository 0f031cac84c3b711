package dev.distlock.etcd;

import dev.distlock.core.spi.OwnerId;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.op.Op;
import java.util.List;

/**
 * Where a lock kind keeps its queue of a key and which older entries hold an entry back: the
 * rule that makes {@link Attempt}'s queue a mutex ({@link MutexRule}) or one side of a read/write
 * lock ({@link ReadWriteRule}). Entries are ordered by create revision; an entry is granted when
 * none of its reads finds an entry other than itself.
 */
interface QueueRule {

    /** The prefix all entries of {@code key}'s queue live under. */
    ByteSequence queue(String key);

    /**
     * The usual name of {@code owner}'s entry for {@code key} on session lease {@code
     * sessionLeaseId}: reused, so that etcd's index of the queue stays small, and taken by at most
     * one attempt at a time in the usual case.
     */
    ByteSequence entry(String key, OwnerId owner, long sessionLeaseId);

    /** A name for the entry when the usual one is taken: with a number unique within the registry. */
    ByteSequence entry(String key, long sessionLeaseId, long number);

    /**
     * The reads done in the transaction that writes a new entry. The first lists the queue's
     * newest entries, newest first, so that it starts with the new entry itself; every entry
     * after it, in this or a later read, holds the new entry back (the first one found is the
     * one to watch).
     */
    List<Op> readsAfterPut(ByteSequence queue);

    /** The reads of what still holds back the entry created at {@code entryRevision}; nearest first. */
    List<Op> readsBefore(ByteSequence queue, long entryRevision);
}
