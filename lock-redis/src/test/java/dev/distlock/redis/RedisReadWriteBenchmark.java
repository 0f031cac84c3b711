package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.rw.ReadWriteBenchmark;
import dev.distlock.core.testing.Benchmark;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Read/write figures on one redis-server; run on demand ({@code -Dtest=RedisReadWriteBenchmark}). */
class RedisReadWriteBenchmark {

    @Test
    void measure() throws Exception {
        try (RedisServers servers = new RedisServers()) {
            LettuceConnectionFactory factory = servers.factory(servers.start());
            try (RedisLockRegistry a = RedisLockRegistry.builder(factory).build();
                    RedisLockRegistry b = RedisLockRegistry.builder(factory).build()) {
                List<Benchmark.Result> results = ReadWriteBenchmark.run("redis", a, b);
                Benchmark.write(Path.of("target/read-write-redis.md"), "redis", "", results);
                assertThat(results)
                        .allSatisfy(result -> assertThat(result.operations()).isPositive());
            }
        }
    }
}
