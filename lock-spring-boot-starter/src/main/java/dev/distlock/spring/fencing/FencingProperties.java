package dev.distlock.spring.fencing;

import dev.distlock.spring.JdbcLockProperties.SchemaInitialization;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the resource side of fencing. */
@ConfigurationProperties(prefix = FencingProperties.PREFIX)
public class FencingProperties {

    public static final String PREFIX = "distributed-lock.fencing";

    private final Jdbc jdbc = new Jdbc();

    public Jdbc getJdbc() {
        return jdbc;
    }

    /** The SQL fence store over the application's DataSource. */
    public static class Jdbc {

        /** Whether to configure the SQL fence store when the application has one DataSource. */
        private boolean enabled = true;

        /** Name of the fence table. */
        private String tableName = "distributed_lock_fence";

        /**
         * When to create the fence table on first use if it is missing. The values are always, embedded (only for
         * in-memory databases such as H2) and never (DDL in the lock-fencing module).
         */
        private SchemaInitialization initializeSchema = SchemaInitialization.ALWAYS;

        /** How long one check may wait for the fence row (held by another holder's transaction) and the database. */
        private Duration timeout = Duration.ofSeconds(10);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getTableName() {
            return tableName;
        }

        public void setTableName(String tableName) {
            this.tableName = tableName;
        }

        public SchemaInitialization getInitializeSchema() {
            return initializeSchema;
        }

        public void setInitializeSchema(SchemaInitialization initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }
}
