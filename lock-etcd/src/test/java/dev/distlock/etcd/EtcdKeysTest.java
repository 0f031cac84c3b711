package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EtcdKeysTest {

    private final EtcdKeys keys = new EtcdKeys("/distlock/");

    @Test
    void encodedKeysNeverContainASlashOrDotSegmentsThatLeaveTheQueue() {
        assertThat(EtcdKeys.encode("a/../b")).isEqualTo("a%2F..%2Fb").doesNotContain("/");
        assertThat(text(keys.queue("../../etc"))).isEqualTo("/distlock/..%2F..%2Fetc/");
    }

    @Test
    void keysThatLookAlikeGetDistinctQueues() {
        List<String> lookAlikes = List.of("a", "a/", "a%2F", "a%252F", "A", "a ", "a\n", "é", "e\u0301", "a:b", "a/b");
        Set<String> queues = new HashSet<>();
        for (String key : lookAlikes) {
            queues.add(text(keys.queue(key)));
        }
        assertThat(queues).hasSize(lookAlikes.size());
    }

    @Test
    void noQueueIsAPrefixOfAnotherKeysQueue() {
        assertThat(text(keys.queue("ab"))).doesNotStartWith(text(keys.queue("a")));
        assertThat(text(keys.entry("a", 0x1f, 2))).isEqualTo("/distlock/a/1f-2");
    }

    @Test
    void readWriteQueuesAreNeitherUnderNorAbovePlainQueuesOrEachOther() {
        List<String> lookAlikes = List.of("a", "a@rw", "a@rw/", "a/", "ab", "a%40rw");
        for (String one : lookAlikes) {
            String readWrite = text(keys.readWriteQueue(one));
            for (String other : lookAlikes) {
                String plain = text(keys.queue(other));
                assertThat(readWrite).doesNotStartWith(plain);
                assertThat(plain).doesNotStartWith(readWrite);
                if (!one.equals(other)) {
                    assertThat(text(keys.readWriteQueue(other))).doesNotStartWith(readWrite);
                }
            }
        }
        assertThat(text(keys.readWriteEntry("a", ReadWriteRule.WRITE, 0x1f))).isEqualTo("/distlock/a@rw/w1f");
        assertThat(text(keys.readWriteEntry("a", ReadWriteRule.DOWNGRADED, 0x1f, 2)))
                .isEqualTo("/distlock/a@rw/d1f-2");
        assertThat(text(keys.readWriteEntryOfThread("a", ReadWriteRule.READ, 0x1f, 0x2a)))
                .isEqualTo("/distlock/a@rw/r1f.2a");
    }

    @Test
    void namespaceGetsItsTrailingSlashAndMustNotBeBlank() {
        assertThat(new EtcdKeys("/locks").namespace()).isEqualTo("/locks/");
        assertThatThrownBy(() -> new EtcdKeys(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("namespace");
    }

    private static String text(io.etcd.jetcd.ByteSequence bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
