package dev.distlock.etcd;

import dev.distlock.core.spi.OwnerId;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import java.util.List;

/**
 * The plain lock's rule. The oldest entry holds the key, and every other entry waits for the one
 * just before it, so a release wakes one waiter.
 */
record MutexRule(EtcdKeys keys) implements QueueRule {

    static final GetOption NEWEST_TWO = newest(2);

    @Override
    public ByteSequence queue(String key) {
        return keys.queue(key);
    }

    /** One name per session, as the gate lets one thread at a time queue for a key. */
    @Override
    public ByteSequence entry(String key, OwnerId owner, long sessionLeaseId) {
        return keys.entry(key, sessionLeaseId);
    }

    @Override
    public ByteSequence entry(String key, long sessionLeaseId, long number) {
        return keys.entry(key, sessionLeaseId, number);
    }

    @Override
    public List<Op> readsAfterPut(ByteSequence queue) {
        return List.of(Op.get(queue, NEWEST_TWO));
    }

    @Override
    public List<Op> readsBefore(ByteSequence queue, long entryRevision) {
        return List.of(Op.get(queue, justBefore(entryRevision)));
    }

    /** The {@code count} newest entries of a queue (prefix), names only. */
    static GetOption newest(int count) {
        return GetOption.builder()
                .isPrefix(true)
                .withKeysOnly(true)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND)
                .withLimit(count)
                .build();
    }

    /** The newest entry of a queue (prefix) created before {@code entryRevision}, name only. */
    static GetOption justBefore(long entryRevision) {
        return GetOption.builder()
                .isPrefix(true)
                .withKeysOnly(true)
                .withMaxCreateRevision(entryRevision - 1)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND)
                .withLimit(1)
                .build();
    }
}
