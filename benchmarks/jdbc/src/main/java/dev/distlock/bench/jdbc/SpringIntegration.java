package dev.distlock.bench.jdbc;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Spring Integration's JdbcLockRegistry over a DefaultLockRepository, with its defaults (TTL 10 s,
 * waiters poll every 100 ms). Its table is the INT_LOCK of Spring Integration's own DDL, under a
 * prefix of its own.
 */
final class SpringIntegration implements Library {

    private final String prefix;

    SpringIntegration(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public String name() {
        return "Spring Integration JdbcLockRegistry";
    }

    @Override
    public void createTable(DataSource pool, String product) {
        String time = product.toLowerCase().contains("postgres") || product.equalsIgnoreCase("h2")
                ? "TIMESTAMP"
                : "DATETIME(6)";
        new JdbcTemplate(pool)
                .execute("CREATE TABLE " + prefix + "LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL,"
                        + " CLIENT_ID CHAR(36), CREATED_DATE " + time + " NOT NULL, EXPIRED_AFTER " + time
                        + " NOT NULL, CONSTRAINT " + prefix + "LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))");
    }

    @Override
    public Contender open(DataSource pool) {
        DefaultLockRepository repository = new DefaultLockRepository(pool);
        repository.setPrefix(prefix);
        repository.setTransactionManager(new DataSourceTransactionManager(pool));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        JdbcLockRegistry registry = new JdbcLockRegistry(repository);
        return new Contender() {
            @Override
            public Held tryAcquire(String key, Duration wait) throws InterruptedException {
                Lock lock = registry.obtain(key);
                return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
            }

            @Override
            public void close() {
                repository.close();
            }
        };
    }

    @Override
    public void dropTable(DataSource pool) {
        new JdbcTemplate(pool).execute("DROP TABLE IF EXISTS " + prefix + "LOCK");
    }
}
