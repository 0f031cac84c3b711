package dev.distlock.bench.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * ShedLock's JdbcTemplateLockProvider with the database's time, lockAtMostFor 30 s. ShedLock does
 * not wait for a lock, so a waiter retries every 10 ms.
 */
final class ShedLock implements Library {

    private static final Duration RETRY = Duration.ofMillis(10);

    private final String table;

    ShedLock(String table) {
        this.table = table;
    }

    @Override
    public String name() {
        return "ShedLock JdbcTemplateLockProvider";
    }

    @Override
    public void createTable(DataSource pool, String product) {
        String time = product.toLowerCase().contains("postgres") || product.equalsIgnoreCase("h2")
                ? "TIMESTAMP"
                : "TIMESTAMP(3)";
        new JdbcTemplate(pool)
                .execute("CREATE TABLE " + table + " (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until " + time
                        + " NOT NULL, locked_at " + time + " NOT NULL, locked_by VARCHAR(255) NOT NULL)");
    }

    @Override
    public Contender open(DataSource pool) {
        JdbcTemplateLockProvider provider =
                new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                        .withJdbcTemplate(new JdbcTemplate(pool))
                        .withTableName(table)
                        .usingDbTime()
                        .build());
        return new Contender() {
            @Override
            public Held tryAcquire(String key, Duration wait) throws InterruptedException {
                long deadline = System.nanoTime() + wait.toNanos();
                while (true) {
                    Optional<SimpleLock> lock = provider.lock(
                            new LockConfiguration(Instant.now(), key, Duration.ofSeconds(30), Duration.ZERO));
                    if (lock.isPresent()) {
                        return lock.get()::unlock;
                    }
                    if (System.nanoTime() - deadline >= 0) {
                        return null;
                    }
                    Thread.sleep(RETRY.toMillis());
                }
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public void dropTable(DataSource pool) {
        new JdbcTemplate(pool).execute("DROP TABLE IF EXISTS " + table);
    }
}
