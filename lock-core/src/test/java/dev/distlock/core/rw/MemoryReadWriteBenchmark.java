package dev.distlock.core.rw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.MemoryLockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.testing.Benchmark;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Read/write figures of the memory backend; run on demand ({@code -Dtest=MemoryReadWriteBenchmark}). */
class MemoryReadWriteBenchmark {

    @Test
    void measure() throws Exception {
        MemoryReadWriteStore store = new MemoryReadWriteStore();
        RegistryOptions options = RegistryOptions.defaults();
        try (ReadWriteLocks a = ReadWriteLocks.inMemory(store, options);
                ReadWriteLocks b = ReadWriteLocks.inMemory(store, options);
                MemoryLockRegistry plainA = new MemoryLockRegistry();
                MemoryLockRegistry plainB = new MemoryLockRegistry()) {
            List<Benchmark.Result> results = ReadWriteBenchmark.run(
                    "memory", new ReadWriteTestRegistry(plainA, a), new ReadWriteTestRegistry(plainB, b));
            Benchmark.write(Path.of("target/read-write-memory.md"), "memory", "", results);
            assertThat(results)
                    .allSatisfy(result -> assertThat(result.operations()).isPositive());
        }
    }
}
