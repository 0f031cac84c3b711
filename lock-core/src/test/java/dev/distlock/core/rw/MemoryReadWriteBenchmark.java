package dev.distlock.core.rw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.MemoryLockRegistry;
import dev.distlock.core.MemoryLockStore;
import dev.distlock.core.testing.Benchmark;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Read/write figures of the memory backend; run on demand ({@code -Dtest=MemoryReadWriteBenchmark}). */
class MemoryReadWriteBenchmark {

    @Test
    void measure() throws Exception {
        MemoryLockStore store = new MemoryLockStore();
        try (MemoryLockRegistry a = MemoryLockRegistry.builder().store(store).build();
                MemoryLockRegistry b = MemoryLockRegistry.builder().store(store).build()) {
            List<Benchmark.Result> results = ReadWriteBenchmark.run("memory", a, b);
            Benchmark.write(Path.of("target/read-write-memory.md"), "memory", "", results);
            assertThat(results)
                    .allSatisfy(result -> assertThat(result.operations()).isPositive());
        }
    }
}
