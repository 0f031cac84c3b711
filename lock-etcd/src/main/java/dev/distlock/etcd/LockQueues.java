package dev.distlock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.util.concurrent.CompletableFuture;

/**
 * The etcd requests on a key's queue (the entries under {@code <namespace><encoded key>/}),
 * each one round trip. The entry with the lowest create revision holds the lock.
 */
final class LockQueues {

    private static final GetOption NEWEST_TWO = GetOption.builder()
            .isPrefix(true)
            .withKeysOnly(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.DESCEND)
            .withLimit(2)
            .build();

    private static final GetOption OLDEST = GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.ASCEND)
            .withLimit(1)
            .build();

    private final KV kv;

    LockQueues(KV kv) {
        this.kv = kv;
    }

    /**
     * Writes {@code entry} on {@code leaseId} and reads the two newest entries of the queue, in one
     * transaction; fails (not succeeded) when an entry of that name exists already.
     */
    CompletableFuture<TxnResponse> enqueue(ByteSequence queue, ByteSequence entry, ByteSequence value, long leaseId) {
        return kv.txn()
                .If(new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(
                        Op.put(
                                entry,
                                value,
                                PutOption.builder().withLeaseId(leaseId).build()),
                        Op.get(queue, NEWEST_TWO))
                .commit();
    }

    /** The entry just before {@code entry}, if {@code entry} still exists (the transaction fails otherwise). */
    CompletableFuture<TxnResponse> entryBefore(ByteSequence queue, ByteSequence entry, long entryRevision) {
        GetOption justBefore = GetOption.builder()
                .isPrefix(true)
                .withKeysOnly(true)
                .withMaxCreateRevision(entryRevision - 1)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND)
                .withLimit(1)
                .build();
        return kv.txn()
                .If(new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.createRevision(entryRevision)))
                .Then(Op.get(queue, justBefore))
                .commit();
    }

    /** The oldest entry of the queue, with its value: the holder. */
    CompletableFuture<GetResponse> head(ByteSequence queue) {
        return kv.get(queue, OLDEST);
    }

    /** Deletes {@code entry} if it still has {@code value}, the one its writer gave it. */
    CompletableFuture<TxnResponse> deleteIfValue(ByteSequence entry, ByteSequence value) {
        return kv.txn()
                .If(new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.value(value)))
                .Then(Op.delete(entry, DeleteOption.DEFAULT))
                .commit();
    }

    /** Deletes {@code entry} if it is still the one created at {@code createRevision}. */
    CompletableFuture<TxnResponse> deleteIf(ByteSequence entry, long createRevision) {
        return kv.txn()
                .If(new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.createRevision(createRevision)))
                .Then(Op.delete(entry, DeleteOption.DEFAULT))
                .commit();
    }
}
