package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.rw.ReadWriteBenchmark;
import dev.distlock.core.testing.Benchmark;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Read/write figures on H2, PostgreSQL and MariaDB; run on demand ({@code -Dtest=JdbcReadWriteBenchmark}). */
class JdbcReadWriteBenchmark {

    @Test
    void measure() throws Exception {
        List<Benchmark.Result> results = new ArrayList<>();
        for (TestDatabase database : TestDatabase.values()) {
            database.require();
            String table = TestDatabase.uniqueTableName("bench");
            try (HikariDataSource poolA = database.pool("bench-a", 10);
                    HikariDataSource poolB = database.pool("bench-b", 10);
                    JdbcLockRegistry a = JdbcLockRegistry.builder(poolA)
                            .tableName(table)
                            .initializeSchema(true)
                            .build();
                    JdbcLockRegistry b =
                            JdbcLockRegistry.builder(poolB).tableName(table).build()) {
                results.addAll(ReadWriteBenchmark.run("jdbc " + database.name().toLowerCase(), a, b));
            }
        }
        Benchmark.write(Path.of("target/read-write-jdbc.md"), "jdbc", "", results);
        assertThat(results).allSatisfy(result -> assertThat(result.operations()).isPositive());
    }
}
