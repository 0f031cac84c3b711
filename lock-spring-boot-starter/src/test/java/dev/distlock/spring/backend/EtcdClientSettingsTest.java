package dev.distlock.spring.backend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.DistributedLockProperties;
import io.etcd.jetcd.ClientBuilder;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The jetcd client the starter builds stays within what an etcd with default limits accepts. */
class EtcdClientSettingsTest {

    /** etcd's default --grpc-keepalive-min-time: pings closer together get GOAWAY "too_many_pings". */
    private static final Duration ETCD_MIN_PING_INTERVAL = Duration.ofSeconds(5);

    private final ClientBuilder builder = EtcdBackendConfiguration.ClientFromPropertiesConfiguration.clientBuilder(
            new DistributedLockProperties().getEtcd());

    @Test
    void keepAlivePingsAreNoCloserThanEtcdAllows() {
        assertThat(builder.keepaliveTime()).isGreaterThanOrEqualTo(ETCD_MIN_PING_INTERVAL);
    }

    @Test
    void noKeepAlivePingsWithoutOpenCalls() {
        // etcd's default policy does not permit pings without a stream; an idle client would be told to go away.
        assertThat(builder.keepaliveWithoutCalls()).isFalse();
    }

    @Test
    void aDeadConnectionIsNoticedWithinSeconds() {
        assertThat(builder.keepaliveTimeout()).isLessThanOrEqualTo(Duration.ofSeconds(10));
    }
}
