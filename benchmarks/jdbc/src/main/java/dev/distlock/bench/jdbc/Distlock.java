package dev.distlock.bench.jdbc;

import dev.distlock.core.LockHandle;
import dev.distlock.jdbc.JdbcLockRegistry;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/** distlock's JdbcLockRegistry, watchdog lease (30 s), its own defaults otherwise. */
final class Distlock implements Library {

    private final String table;

    Distlock(String table) {
        this.table = table;
    }

    @Override
    public String name() {
        return "distlock";
    }

    @Override
    public void createTable(DataSource pool, String product) {
        try (JdbcLockRegistry registry = JdbcLockRegistry.builder(pool)
                .tableName(table)
                .initializeSchema(true)
                .build()) {
            registry.verify(Duration.ofSeconds(30)); // connects and creates the table
        }
    }

    @Override
    public Contender open(DataSource pool) {
        JdbcLockRegistry registry =
                JdbcLockRegistry.builder(pool).tableName(table).build();
        return new Contender() {
            @Override
            public Held tryAcquire(String key, Duration wait) throws InterruptedException {
                Optional<LockHandle> handle = registry.obtain(key).tryAcquire(wait);
                return handle.<Held>map(h -> h::close).orElse(null);
            }

            @Override
            public void close() {
                registry.close();
            }
        };
    }

    @Override
    public void dropTable(DataSource pool) {
        new JdbcTemplate(pool).execute("DROP TABLE IF EXISTS " + table);
    }
}
