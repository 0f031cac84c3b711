package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RedisKeysTest {

    @Test
    void lockAndCounterShareOneHashTag() {
        RedisKeys keys = RedisKeys.of("orders:42");
        assertThat(keys.lock()).isEqualTo("distlock:{orders:42}");
        assertThat(keys.fence()).isEqualTo("distlock:{orders:42}:fence");
    }

    @Test
    void bracesCannotEndTheHashTagEarly() {
        RedisKeys keys = RedisKeys.of("a}b{c");
        assertThat(keys.lock()).isEqualTo("distlock:{a%7Db%7Bc}");
        assertThat(hashTag(keys.lock())).isEqualTo(hashTag(keys.fence())).isEqualTo("a%7Db%7Bc");
    }

    @Test
    void escapingKeepsDistinctKeysDistinct() {
        List<String> keys = List.of("{", "%7B", "%257B", "}", "%7D", "%", "%25", "a{b", "a%7Bb", "");
        Set<String> names = new HashSet<>();
        keys.forEach(key -> names.add(RedisKeys.of(key).lock()));
        assertThat(names).hasSameSizeAs(keys);
    }

    /** The part of a key Redis Cluster hashes: between the first '{' and the next '}', if not empty. */
    private static String hashTag(String key) {
        int open = key.indexOf('{');
        int close = key.indexOf('}', open + 1);
        return key.substring(open + 1, close);
    }
}
