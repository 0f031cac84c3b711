package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Redlock refuses read/write locks with the reason and the registry to use instead. */
class RedlockReadWriteLockIT {

    @Test
    void readWriteLocksAreRefusedWithTheReasonAndTheAlternative() {
        try (RedisServers servers = new RedisServers()) {
            List<String> uris = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                uris.add("redis://" + servers.start().address());
            }
            try (RedlockLockRegistry registry =
                    RedlockLockRegistry.builder().nodeUris(uris).build()) {
                assertThatThrownBy(() -> registry.readWriteLock("report"))
                        .isInstanceOf(UnsupportedOperationException.class)
                        .hasMessageContaining("'report'")
                        .hasMessageContaining("Redlock")
                        .hasMessageContaining("RedisLockRegistry");
            }
        }
    }
}
