package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class LockScriptsTest {

    @Test
    void everyScriptIsLoadedWithItsSha1() {
        for (LockScripts script : LockScripts.values()) {
            assertThat(script.body()).isNotEmpty();
            assertThat(script.sha1()).hasSize(40).matches("[0-9a-f]+");
        }
        assertThat(LockScripts.ACQUIRE.sha1()).isNotEqualTo(LockScripts.RELEASE.sha1());
    }

    @Test
    void scriptsTakeKeysAsArgumentsAndFormatTokensWithoutLosingDigits() {
        String acquire = new String(LockScripts.ACQUIRE.body(), StandardCharsets.UTF_8);
        assertThat(acquire).contains("KEYS[1]", "KEYS[2]", "string.format('%d'", "redis.call('TIME')");
        assertThat(acquire).doesNotContain("tostring(");
    }

    @Test
    void acquireAnswersAreParsedFromIntegersAndBulkStrings() {
        AcquireReply granted =
                AcquireReply.parse(List.of(1L, "8999999999999991".getBytes(StandardCharsets.US_ASCII)), 7);
        assertThat(granted.granted()).isTrue();
        assertThat(granted.token()).isEqualTo(8_999_999_999_999_991L);
        assertThat(granted.sentAtNanos()).isEqualTo(7);
        AcquireReply held = AcquireReply.parse(List.of(0L, 1234L), 7);
        assertThat(held.granted()).isFalse();
        assertThat(held.holderLeaseMillis()).isEqualTo(1234);
    }
}
