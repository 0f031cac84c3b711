package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Reads a key's queue entries straight from etcd (default namespace, no key prefix), as a test checks them. */
final class QueueEntries {

    private QueueEntries() {}

    /** The queue entries of {@code key}, oldest first. */
    static List<KeyValue> of(Client admin, String key) throws Exception {
        ByteSequence queue = new EtcdKeys(EtcdKeys.DEFAULT_NAMESPACE).queue(key);
        GetOption all = GetOption.builder()
                .isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.ASCEND)
                .build();
        return admin.getKVClient().get(queue, all).get(5, TimeUnit.SECONDS).getKvs();
    }

    /** Waits up to 10 s for {@code count} entries under {@code key}. */
    static List<KeyValue> await(Client admin, String key, int count) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<KeyValue> entries = of(admin, key);
        while (entries.size() != count && System.nanoTime() < end) {
            Thread.sleep(20);
            entries = of(admin, key);
        }
        assertThat(entries).as("queue entries of %s", key).hasSize(count);
        return entries;
    }
}
