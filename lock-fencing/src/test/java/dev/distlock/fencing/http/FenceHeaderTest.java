package dev.distlock.fencing.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.FencingClaim;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FenceHeaderTest {

    private static FencingClaim claim(String backend, String key, long token) {
        return new FencingClaim(backend, key, FencingToken.of(token));
    }

    @Test
    void aPlainClaimIsWrittenAsStructuredFieldParameters() {
        assertThat(FenceHeader.format(claim("redis", "order:42", 1_790_000_000_000_123L)))
                .isEqualTo("backend=redis; key=\"order:42\"; token=1790000000000123");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "order:42",
                "a \"quoted\" key",
                "back\\slash",
                "semi;colon, comma = equals",
                "café ünïcode ключ",
                "100% \"mixed\" ☃ \\",
                "tab\tand\nnewline"
            })
    void everyLockKeyRoundTrips(String key) {
        FencingClaim claim = claim("zookeeper", key, Long.MAX_VALUE);
        String header = FenceHeader.format(claim);

        assertThat(header).matches("[\\x20-\\x7e]*");
        assertThat(FenceHeader.parse(header)).isEqualTo(claim);
    }

    @Test
    void aBackendNameThatIsNoTokenIsQuoted() {
        FencingClaim claim = claim("my backend", "k", 5);
        assertThat(FenceHeader.format(claim)).startsWith("backend=\"my backend\";");
        assertThat(FenceHeader.parse(FenceHeader.format(claim))).isEqualTo(claim);
    }

    @Test
    void spacingAndOrderAndUnknownParametersAreTolerated() {
        assertThat(FenceHeader.parse("token=7;key=\"k\";   backend=etcd ; v=1")).isEqualTo(claim("etcd", "k", 7));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "garbage",
                "backend=redis; key=\"k\"",
                "backend=redis; key=\"k\"; token=0",
                "backend=redis; key=\"k\"; token=-5",
                "backend=redis; key=\"k\"; token=12x",
                "backend=redis; key=\"k\"; token=99999999999999999999",
                "backend=redis; key=\"k; token=5",
                "backend=redis; key=\"k\\x\"; token=5",
                "backend=redis; key=%\"%zz\"; token=5",
                "backend=redis; key=%\"%ff\"; token=5",
                "backend=redis; key=\"k\"; token=5;",
                "backend=redis; backend=etcd; key=\"k\"; token=5",
                "backend=redis key=\"k\" token=5",
                "backend=redis; key=\"\"; token=5"
            })
    void aMalformedValueIsRefusedNamingTheHeader(String value) {
        assertThatThrownBy(() -> FenceHeader.parse(value))
                .isInstanceOf(InvalidFenceHeaderException.class)
                .hasMessageContaining("Distlock-Fence");
    }

    @Test
    void anOverlongValueIsRefusedBeforeParsing() {
        assertThatThrownBy(() -> FenceHeader.parse("backend=redis; key=\"" + "k".repeat(5000) + "\"; token=5"))
                .isInstanceOf(InvalidFenceHeaderException.class)
                .hasMessageContaining("limit is 4096");
    }
}
