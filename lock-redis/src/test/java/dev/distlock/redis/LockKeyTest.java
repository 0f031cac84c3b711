package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LockKeyTest {

    @Test
    void lockHashIsTheKeyInAHashTagUnderTheNamespace() {
        LockKey key = LockKey.of("orders:42");
        assertThat(key.name()).isEqualTo("distlock:{orders:42}");
        assertThat(key.nameBytes()).isEqualTo("distlock:{orders:42}".getBytes(StandardCharsets.UTF_8));
        assertThat(key.key()).isEqualTo("orders:42");
    }

    @Test
    void bracesCannotEndTheHashTagEarly() {
        LockKey key = LockKey.of("a}b{c");
        assertThat(key.name()).isEqualTo("distlock:{a%7Db%7Bc}");
    }

    @Test
    void escapingKeepsDistinctKeysDistinct() {
        List<String> keys = List.of("{", "%7B", "%257B", "}", "%7D", "%", "%25", "a{b", "a%7Bb", "");
        Set<String> names = new HashSet<>();
        keys.forEach(key -> names.add(LockKey.of(key).name()));
        assertThat(names).hasSameSizeAs(keys);
    }
}
