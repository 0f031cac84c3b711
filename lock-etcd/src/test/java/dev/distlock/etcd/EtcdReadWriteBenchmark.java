package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.rw.ReadWriteBenchmark;
import dev.distlock.core.testing.Benchmark;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Read/write figures on one etcd member; run on demand ({@code -Dtest=EtcdReadWriteBenchmark}). */
class EtcdReadWriteBenchmark {

    @Test
    void measure(@TempDir Path dir) throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                LockRegistry a = etcd.newRegistry(RegistryOptions.defaults());
                LockRegistry b = etcd.newRegistry(RegistryOptions.defaults())) {
            List<Benchmark.Result> results = ReadWriteBenchmark.run("etcd", a, b);
            Benchmark.write(Path.of("target/read-write-etcd.md"), "etcd", "", results);
            assertThat(results)
                    .allSatisfy(result -> assertThat(result.operations()).isPositive());
        }
    }
}
