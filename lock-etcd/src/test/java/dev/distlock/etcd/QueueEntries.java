package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** Reads a key's queue entries straight from etcd (default namespace, no key prefix), as a test checks them. */
final class QueueEntries {

    private QueueEntries() {}

    /** The queue entries of {@code key}'s plain lock, oldest first. */
    static List<KeyValue> of(Client admin, String key) throws Exception {
        return under(admin, new EtcdKeys(EtcdKeys.DEFAULT_NAMESPACE).queue(key));
    }

    /** The entries of {@code key}'s read/write queue, oldest first. */
    static List<KeyValue> ofReadWrite(Client admin, String key) throws Exception {
        return under(admin, new EtcdKeys(EtcdKeys.DEFAULT_NAMESPACE).readWriteQueue(key));
    }

    /** Waits up to 10 s for {@code count} entries under {@code key}'s plain lock. */
    static List<KeyValue> await(Client admin, String key, int count) throws Exception {
        return await(() -> of(admin, key), "queue entries of " + key, count);
    }

    /** Waits up to 10 s for {@code count} entries in {@code key}'s read/write queue. */
    static List<KeyValue> awaitReadWrite(Client admin, String key, int count) throws Exception {
        return await(() -> ofReadWrite(admin, key), "read/write entries of " + key, count);
    }

    private static List<KeyValue> under(Client admin, ByteSequence queue) throws Exception {
        GetOption all = GetOption.builder()
                .isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.ASCEND)
                .build();
        return admin.getKVClient().get(queue, all).get(5, TimeUnit.SECONDS).getKvs();
    }

    private static List<KeyValue> await(Callable<List<KeyValue>> read, String what, int count) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<KeyValue> entries = read.call();
        while (entries.size() != count && System.nanoTime() < end) {
            Thread.sleep(20);
            entries = read.call();
        }
        assertThat(entries).as(what).hasSize(count);
        return entries;
    }
}
