package dev.distlock.etcd;

import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.OwnerId;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import java.util.List;

/**
 * One side of the read/write lock's rule over the key's {@link EtcdKeys#readWriteQueue}. Entry
 * names start with their kind. {@code w} is a write, {@code r} a read, {@code d} a downgrade (a
 * read by the thread that holds the write lock, granted at once).
 *
 * <ul>
 *   <li>A write entry waits for every older entry and for every {@code d} entry.
 *   <li>A read entry waits for older write entries only, so readers share the key.
 * </ul>
 */
record ReadWriteRule(EtcdKeys keys, LockMode mode) implements QueueRule {

    static final char WRITE = 'w';
    static final char READ = 'r';
    static final char DOWNGRADED = 'd';

    @Override
    public ByteSequence queue(String key) {
        return keys.readWriteQueue(key);
    }

    /** One writer name per session, as the gate lets one thread at a time queue. One reader name per thread. */
    @Override
    public ByteSequence entry(String key, OwnerId owner, long sessionLeaseId) {
        return usualEntry(keys, key, mode == LockMode.WRITE ? WRITE : READ, owner, sessionLeaseId);
    }

    /** The usual name of an entry of {@code kind}, per thread for reads and per session otherwise. */
    static ByteSequence usualEntry(EtcdKeys keys, String key, char kind, OwnerId owner, long sessionLeaseId) {
        if (kind == WRITE || owner.thread() == 0) {
            return keys.readWriteEntry(key, kind, sessionLeaseId);
        }
        return keys.readWriteEntryOfThread(key, kind, sessionLeaseId, owner.thread());
    }

    @Override
    public ByteSequence entry(String key, long sessionLeaseId, long number) {
        return keys.readWriteEntry(key, kind(), sessionLeaseId, number);
    }

    @Override
    public List<Op> readsAfterPut(ByteSequence queue) {
        if (mode == LockMode.WRITE) {
            return List.of(Op.get(queue, MutexRule.NEWEST_TWO), anyOf(queue, DOWNGRADED));
        }
        // Every write entry there is older than the new read entry, so the newest is the nearest.
        return List.of(Op.get(queue, MutexRule.newest(1)), newestOf(queue, WRITE, 0));
    }

    @Override
    public List<Op> readsBefore(ByteSequence queue, long entryRevision) {
        if (mode == LockMode.WRITE) {
            return List.of(Op.get(queue, MutexRule.justBefore(entryRevision)), anyOf(queue, DOWNGRADED));
        }
        return List.of(newestOf(queue, WRITE, entryRevision - 1));
    }

    private char kind() {
        return mode == LockMode.WRITE ? WRITE : READ;
    }

    /** The newest entry of {@code kind}, created at or before {@code maxCreateRevision} (0 for any). */
    private static Op newestOf(ByteSequence queue, char kind, long maxCreateRevision) {
        GetOption.Builder option = kindRange(queue, kind)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND);
        if (maxCreateRevision > 0) {
            option.withMaxCreateRevision(maxCreateRevision);
        }
        return Op.get(kindStart(queue, kind), option.build());
    }

    private static Op anyOf(ByteSequence queue, char kind) {
        return Op.get(kindStart(queue, kind), kindRange(queue, kind).build());
    }

    /** One entry whose name starts with {@code kind}. */
    private static GetOption.Builder kindRange(ByteSequence queue, char kind) {
        return GetOption.builder()
                .withRange(kindStart(queue, (char) (kind + 1)))
                .withKeysOnly(true)
                .withLimit(1);
    }

    static ByteSequence kindStart(ByteSequence queue, char kind) {
        return queue.concat(EtcdKeys.bytes(String.valueOf(kind)));
    }
}
