package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class EtcdLeaseTimeTest {

    @Test
    void leaseTimesAreRoundedUpToWholeSecondsForTheServer() {
        assertThat(ttl(Duration.ofSeconds(1).plusNanos(1))).isEqualTo(2);
        assertThat(ttl(Duration.ofMillis(2900).plusNanos(500_000))).isEqualTo(3);
        assertThat(ttl(Duration.ofSeconds(3))).isEqualTo(3);
        assertThat(ttl(Duration.ofNanos(1))).isEqualTo(1);
    }

    private static long ttl(Duration lease) {
        return Sessions.ttlSeconds(lease);
    }
}
