package dev.distlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.memory.MemoryLockRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FencingTokenInJobTest {

    private final MemoryLockRegistry registry = new MemoryLockRegistry();
    private final DistlockLockProvider provider = new DistlockLockProvider(registry);
    private final LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);

    @AfterEach
    void close() {
        registry.close();
    }

    @Test
    void eachRunOfAJobSeesTheTokenOfItsOwnLockAndTokensRise() {
        List<Optional<FencingToken>> seen = new ArrayList<>();
        LockConfiguration job = new LockConfiguration(Instant.now(), "report", Duration.ofMinutes(1), Duration.ZERO);

        executor.executeWithLock((Runnable) () -> seen.add(provider.currentToken("report")), job);
        executor.executeWithLock((Runnable) () -> seen.add(provider.currentToken("report")), job);

        assertThat(seen).allSatisfy(token -> assertThat(token).isPresent());
        assertThat(seen.get(1).orElseThrow()).isGreaterThan(seen.get(0).orElseThrow());
        assertThat(provider.currentToken("report"))
                .as("no token outside the job")
                .isEmpty();
    }
}
