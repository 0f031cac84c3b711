package dev.distlock.spring.backend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.LockBackendType;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LockBackendSelectionTest {

    private static final String REDIS = "dev.distlock.redis.RedisLockRegistry";
    private static final String JDBC = "dev.distlock.jdbc.JdbcLockRegistry";

    @Test
    void unsetWithOneModulePicksIt() {
        assertThat(LockBackendSelection.select(null, Set.of(REDIS)::contains).backend())
                .isEqualTo(LockBackendType.REDIS);
    }

    @Test
    void unsetWithNoModulePicksMemory() {
        assertThat(LockBackendSelection.select(" ", name -> false).backend()).isEqualTo(LockBackendType.MEMORY);
    }

    @Test
    void unsetWithSeveralModulesNamesThemAndTheProperty() {
        LockBackendSelection selection = LockBackendSelection.select(null, Set.of(REDIS, JDBC)::contains);
        assertThat(selection.backend()).isNull();
        assertThat(selection.problem()).contains("lock-redis, lock-jdbc");
        assertThat(selection.action()).contains("Set distributed-lock.backend to one of: redis, jdbc, memory.");
    }

    @Test
    void configuredValueIsTrimmedAndCaseInsensitive() {
        assertThat(LockBackendSelection.select(" Redis ", Set.of(REDIS, JDBC)::contains)
                        .backend())
                .isEqualTo(LockBackendType.REDIS);
    }

    @Test
    void configuredBackendWithoutItsModuleNamesTheArtifact() {
        assertThat(LockBackendSelection.select("redis", Set.of(JDBC)::contains).action())
                .contains("dev.distlock:lock-redis");
    }
}
