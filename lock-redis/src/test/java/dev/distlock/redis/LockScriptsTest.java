package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.redis.LockScripts.AcquireReply;
import dev.distlock.redis.LockScripts.StoredHolder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LockScriptsTest {

    @Test
    void everyScriptIsLoadedWithItsSha1() {
        for (LuaScript<?> script : LockScripts.ALL) {
            assertThat(script.body()).isNotEmpty();
            assertThat(script.sha1()).hasSize(40).matches("[0-9a-f]+");
        }
        assertThat(LockScripts.ALL.stream().map(LuaScript::sha1).distinct()).hasSameSizeAs(LockScripts.ALL);
    }

    @Test
    void scriptsTakeKeysAsArgumentsAndFormatTokensWithoutLosingDigits() {
        String acquire = new String(LockScripts.ACQUIRE.body(), StandardCharsets.UTF_8);
        assertThat(acquire).contains("KEYS[1]", "string.format('%d'", "redis.call('TIME')", "'NX', 'PX'");
        assertThat(acquire).doesNotContain("tostring(", "KEYS[4]");
        LockKey key = LockKey.of("orders:{7}");
        byte[][] keys = LockScripts.acquire(key, new byte[1], Duration.ofSeconds(1), new byte[0])
                .keys();
        assertThat(Arrays.stream(keys).map(bytes -> new String(bytes, StandardCharsets.UTF_8)))
                .as("the lock and its line, both in the key's hash tag")
                .containsExactly("distlock:{orders:%7B7%7D}", "distlock:{orders:%7B7%7D}:q");
        byte[][] guarded = LockScripts.acquireUnlessHeld(
                        key, LockKey.of("orders:waiting"), new byte[1], Duration.ofSeconds(1), new byte[0])
                .keys();
        assertThat(Arrays.stream(guarded).map(bytes -> new String(bytes, StandardCharsets.UTF_8)))
                .as("a guarded take reads a third key, in the guard's own hash tag")
                .containsExactly(
                        "distlock:{orders:%7B7%7D}", "distlock:{orders:%7B7%7D}:q", "distlock:{orders:waiting}");
    }

    @Test
    void acquireAnswersAreATokenOrTheHoldersLeaseBelowZero() {
        AcquireReply granted = LockScripts.ACQUIRE.read(8_999_999_999_999_991L);
        assertThat(granted.granted()).isTrue();
        assertThat(granted.token()).isEqualTo(8_999_999_999_999_991L);
        AcquireReply held = LockScripts.ACQUIRE.read(-2L - 1234L);
        assertThat(held.granted()).isFalse();
        assertThat(held.holderLeaseMillis()).isEqualTo(1234);
        assertThat(LockScripts.ACQUIRE.read(-1L).holderLeaseMillis())
                .as("a hold without expiry")
                .isEqualTo(-1);
        assertThat(LockScripts.ACQUIRE.read(-2L).holderLeaseMillis()).isZero();
    }

    @Test
    void readWriteAnswersArePairsOfIntegersOrBulkStrings() {
        AcquireReply granted = AcquireReply.readPair(
                List.of(1L, "8999999999999991".getBytes(StandardCharsets.US_ASCII)), "read-write.lua");
        assertThat(granted.granted()).isTrue();
        assertThat(granted.token()).isEqualTo(8_999_999_999_999_991L);
        AcquireReply held = AcquireReply.readPair(List.of(0L, 1234L), "read-write.lua");
        assertThat(held.granted()).isFalse();
        assertThat(held.holderLeaseMillis()).isEqualTo(1234);
    }

    @Test
    void holderAnswersAreReadWithTheirToken() {
        StoredHolder holder = LockScripts.HOLDER.read(List.of(
                "r:1:2".getBytes(StandardCharsets.UTF_8),
                "app@host pid 7 thread main".getBytes(StandardCharsets.UTF_8),
                "1800000000000001".getBytes(StandardCharsets.US_ASCII),
                2500L));
        assertThat(holder.held()).isTrue();
        assertThat(holder.holder()).isEqualTo("app@host pid 7 thread main");
        assertThat(holder.token()).isEqualTo(1_800_000_000_000_001L);
        assertThat(LockScripts.HOLDER.read(List.of()).held()).isFalse();
    }

    @Test
    void leasesAreRoundedUpToWholeMillisecondsForTheServer() {
        assertThat(millis(Duration.ofNanos(2_900_000))).isEqualTo("3");
        assertThat(millis(Duration.ofNanos(2_000_001))).isEqualTo("3");
        assertThat(millis(Duration.ofMillis(2))).isEqualTo("2");
        assertThat(millis(Duration.ofNanos(1))).isEqualTo("1");
        assertThat(millis(Duration.ofSeconds(30))).isEqualTo("30000");
    }

    private static String millis(Duration lease) {
        return new String(LockScripts.millis(lease), StandardCharsets.US_ASCII);
    }
}
