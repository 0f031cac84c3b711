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

/**
 * The etcd requests on a key's queue (the entries under one prefix, see {@link QueueRule}), each
 * one round trip. What an entry waits for is the rule's reads; this class only runs them.
 */
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
     * Writes {@code entry} on {@code leaseId} and then does {@code reads}, in one transaction;
     * fails (not succeeded) when an entry of that name exists already, and then reads that entry.
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

    /**
     * Writes {@code entry} on {@code leaseId} if no entry of that name exists and {@code other} is
     * still the entry created at {@code otherRevision}; fails (not succeeded) otherwise.
     */
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

    /** Does {@code reads} if {@code entry} still exists as created at {@code entryRevision} (the transaction fails otherwise). */
    CompletableFuture<TxnResponse> readIfExists(ByteSequence entry, long entryRevision, List<Op> reads) {
        return kv.txn()
                .If(new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.createRevision(entryRevision)))
                .Then(reads.toArray(Op[]::new))
                .commit();
    }

    /** The oldest entry of the queue, with its value: the holder. */
    CompletableFuture<GetResponse> head(ByteSequence queue) {
        return kv.get(queue, OLDEST);
    }

    /** The newest entry of the queue, name only: of the entries there now, normally the last to go. */
    CompletableFuture<GetResponse> newest(ByteSequence queue) {
        return kv.get(queue, MutexRule.newest(1));
    }

    /** Puts {@code entry} on lease {@code leaseId} if it still has {@code value}; a put keeps its create revision. */
    CompletableFuture<TxnResponse> moveToLease(ByteSequence entry, ByteSequence value, long leaseId) {
        return kv.txn()
                .If(new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.value(value)))
                .Then(Op.put(
                        entry, value, PutOption.builder().withLeaseId(leaseId).build()))
                .commit();
    }

    /**
     * Succeeds when every one of {@code entries} still has its value in {@code values}; otherwise
     * reads each of them (in the same order), so the caller can tell which are gone.
     */
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
