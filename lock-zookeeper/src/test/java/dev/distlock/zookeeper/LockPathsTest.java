package dev.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.common.PathUtils;
import org.junit.jupiter.api.Test;

class LockPathsTest {

    private static final List<String> TRICKY_KEYS = List.of(
            "a",
            "A",
            "a/b",
            "a%2Fb",
            "a%252Fb",
            ".",
            "..",
            "../..",
            "/",
            "//",
            "a.b",
            "a b",
            "a\u0000",
            "a\u0001",
            "a\n",
            "\u007f",
            "é",
            "e\u0301",
            "😀",
            "a?",
            "a\uD800",
            "a\uDC00",
            "a\uD83D\uDE00",
            "zookeeper",
            "_-",
            "%",
            "%25");

    @Test
    void encodedKeysAreOneValidNodeNameUnderTheRoot() {
        LockPaths paths = new LockPaths("/distlock");
        for (String key : TRICKY_KEYS) {
            String encoded = LockPaths.encode(key);
            assertThat(encoded).as("key %s", key).matches("[A-Za-z0-9_%-]+");
            String path = paths.keyPath(key);
            PathUtils.validatePath(path);
            assertThat(path).startsWith("/distlock/").doesNotContain("/./", "/../");
            assertThat(path.substring("/distlock/".length())).doesNotContain("/");
        }
    }

    @Test
    void differentKeysNeverShareANode() {
        Set<String> encoded = new HashSet<>();
        for (String key : TRICKY_KEYS) {
            assertThat(encoded.add(LockPaths.encode(key))).as("key %s", key).isTrue();
        }
    }

    @Test
    void plainCharactersStayReadableOthersAreUtf8PercentEncoded() {
        assertThat(LockPaths.encode("orders_42-A")).isEqualTo("orders_42-A");
        assertThat(LockPaths.encode("orders:42/x.y")).isEqualTo("orders%3A42%2Fx%2Ey");
        assertThat(LockPaths.encode("é")).isEqualTo("%C3%A9");
        assertThat(LockPaths.encode("😀")).isEqualTo("%F0%9F%98%80");
        assertThat(LockPaths.encode("%")).isEqualTo("%25");
        assertThat(LockPaths.encode("\uD800")).as("lone surrogate").isEqualTo("%ED%A0%80");
    }

    @Test
    void longestKeyStaysFarBelowZooKeepersRequestLimit() {
        String worst = "\uFFFF".repeat(LockPaths.MAX_KEY_LENGTH);
        assertThat(LockPaths.encode(worst)).hasSize(9 * LockPaths.MAX_KEY_LENGTH);
        assertThat(9 * LockPaths.MAX_KEY_LENGTH).isLessThan(1024 * 1024 / 100);
    }

    @Test
    void queueIsOrderedBySequenceWhateverTheProtectionPrefix() {
        List<String> children = List.of(
                "_c_f3a0c3b6-0b55-4a59-9a3e-2b7c1e0d9f11-lock-0000000012",
                "_c_0a9e1c2d-1111-4a59-9a3e-2b7c1e0d9f11-lock-0000000003",
                "unrelated",
                "_c_9999aaaa-2222-4a59-9a3e-2b7c1e0d9f11-lock-0000000007",
                "lock-0000000001");
        assertThat(LockPaths.queue(children))
                .containsExactly(
                        "lock-0000000001",
                        "_c_0a9e1c2d-1111-4a59-9a3e-2b7c1e0d9f11-lock-0000000003",
                        "_c_9999aaaa-2222-4a59-9a3e-2b7c1e0d9f11-lock-0000000007",
                        "_c_f3a0c3b6-0b55-4a59-9a3e-2b7c1e0d9f11-lock-0000000012");
    }

    @Test
    void rootPathIsNormalizedOrRejectedWithTheReason() {
        assertThat(new LockPaths("/locks/").root()).isEqualTo("/locks");
        assertThat(new LockPaths(" /a/b ").root()).isEqualTo("/a/b");
        assertThatThrownBy(() -> new LockPaths("/")).hasMessageContaining("must not be '/'");
        assertThatThrownBy(() -> new LockPaths("")).hasMessageContaining("blank");
        assertThatThrownBy(() -> new LockPaths("locks")).hasMessageContaining("'locks'");
        assertThatThrownBy(() -> new LockPaths("/a/../b")).isInstanceOf(IllegalArgumentException.class);
    }
}
