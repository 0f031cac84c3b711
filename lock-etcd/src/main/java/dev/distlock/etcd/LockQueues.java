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
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The etcd requests on a key's queue, each one round trip. The {@link QueueRule} decides what to read. */
final class LockQueues {

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
     * Writes {@code entry} on {@code leaseId} and does {@code reads} in one transaction. When an
     * entry of that name exists, the transaction fails and reads that entry instead.
     */
    CompletableFuture<TxnResponse> enqueue(ByteSequence entry, ByteSequence value, long leaseId, List<Op> reads) {
        Op[] then = new Op[reads.size() + 1];
        then[0] = Op.put(entry, value, PutOption.builder().withLeaseId(leaseId).build());
        for (int i = 0; i < reads.size(); i++) {
            then[i + 1] = reads.get(i);
        }
        return kv.txn()
                .If(new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(then)
                .Else(Op.get(entry, GetOption.DEFAULT))
                .commit();
    }

    /** Writes {@code entry} unless its name exists, while {@code other} is still the one created at {@code otherRevision}. */
    CompletableFuture<TxnResponse> enqueueWhileExists(
            ByteSequence entry, ByteSequence value, long leaseId, ByteSequence other, long otherRevision) {
        return kv.txn()
                .If(
                        new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.createRevision(0)),
                        new Cmp(other, Cmp.Op.EQUAL, CmpTarget.createRevision(otherRevision)))
                .Then(Op.put(
                        entry, value, PutOption.builder().withLeaseId(leaseId).build()))
                .commit();
    }

    /** Does {@code reads} if {@code entry} is still the one created at {@code entryRevision}. */
    CompletableFuture<TxnResponse> readIfExists(ByteSequence entry, long entryRevision, List<Op> reads) {
        return kv.txn()
                .If(new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.createRevision(entryRevision)))
                .Then(reads.toArray(Op[]::new))
                .commit();
    }

    /** The oldest entry of the queue, the holder, with its value. */
    CompletableFuture<GetResponse> head(ByteSequence queue) {
        return kv.get(queue, OLDEST);
    }

    /** The newest entry of the queue, name only. It is normally the last of them to go. */
    CompletableFuture<GetResponse> newest(ByteSequence queue) {
        return kv.get(queue, MutexRule.newest(1));
    }

    /** Puts {@code entry} on lease {@code leaseId} if it still has {@code value}. A put keeps its create revision. */
    CompletableFuture<TxnResponse> moveToLease(ByteSequence entry, ByteSequence value, long leaseId) {
        return kv.txn()
                .If(new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.value(value)))
                .Then(Op.put(
                        entry, value, PutOption.builder().withLeaseId(leaseId).build()))
                .commit();
    }

    /** Succeeds when all {@code entries} still have their {@code values}, and otherwise reads each of them in order. */
    CompletableFuture<TxnResponse> allHaveValues(List<ByteSequence> entries, List<ByteSequence> values) {
        Cmp[] compares = new Cmp[entries.size()];
        Op[] reads = new Op[entries.size()];
        for (int i = 0; i < entries.size(); i++) {
            compares[i] = new Cmp(entries.get(i), Cmp.Op.EQUAL, CmpTarget.value(values.get(i)));
            reads[i] = Op.get(entries.get(i), GetOption.DEFAULT);
        }
        return kv.txn().If(compares).Else(reads).commit();
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
