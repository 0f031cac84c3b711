package dev.distlock.spring;

/** JDBC backend settings. The connection comes from the application's DataSource. */
public class JdbcLockProperties {

    /** Name of the lock table. */
    private String tableName = "distributed_lock";

    /**
     * When to create the lock table at start-up if it is missing. The values are always, embedded (only for
     * in-memory databases such as H2) and never. An existing table is used as it is.
     */
    private SchemaInitialization initializeSchema = SchemaInitialization.ALWAYS;

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

    /** When the JDBC backend creates its table. */
    public enum SchemaInitialization {
        /** Whenever the table is missing. An existing table is only checked, so no DDL rights are needed then. */
        ALWAYS,
        /** Only for in-memory databases (H2, HSQLDB, Derby in memory). */
        EMBEDDED,
        /** Never. Migrations create the table (DDL in the lock-jdbc module). */
        NEVER
    }
}
