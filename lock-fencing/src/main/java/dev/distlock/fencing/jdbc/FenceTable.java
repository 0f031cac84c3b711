package dev.distlock.fencing.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.datasource.init.ScriptUtils;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * The fence table in one database, once it was found usable, with its statements, its address for
 * messages, and how its failures become Spring data-access exceptions. Set up by {@link #connect},
 * which checks the table on a connection of its own (never in the caller's transaction, where a
 * failing probe would abort it on PostgreSQL) and creates it when asked.
 */
final class FenceTable {

    private static final Pattern USER_INFO = Pattern.compile("//[^/@?;]*@");

    /**
     * One monitor per database and table. Stores of one JVM check and create a table one at a time. H2 shows a new
     * table to other sessions before its primary key exists. A store that found it then and wrote its first row
     * could make the creator's key fail on a duplicate, which left H2's in-memory database closed.
     */
    private static final ConcurrentMap<String, ReentrantLock> SETTING_UP = new ConcurrentHashMap<>();

    final FenceStatements statements;
    final String address;
    private final SQLExceptionTranslator translator;

    private FenceTable(FenceStatements statements, String address, String product) {
        this.statements = statements;
        this.address = address;
        this.translator = new SQLErrorCodeSQLExceptionTranslator(product);
    }

    /**
     * Learns the database, checks that the table can be read, and creates it first when it cannot
     * and {@code create} is set. Several instances creating it at once is fine. Within one JVM the
     * check and the creation of one table run one store at a time.
     */
    static FenceTable connect(DataSource dataSource, FenceTableName table, boolean create, int querySeconds) {
        FenceTable fenceTable;
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            String product = metaData.getDatabaseProductName();
            fenceTable =
                    new FenceTable(FenceStatements.of(product, table), withoutCredentials(metaData.getURL()), product);
        } catch (SQLException | RuntimeException e) {
            if (e instanceof IllegalStateException unsupported) {
                throw unsupported;
            }
            throw new DataAccessResourceFailureException(
                    "The fence store could not connect to the database of the fence table '" + table + "' ("
                            + causes(e) + "). Check that the database is running and reachable; fence checks"
                            + " fail until it is.",
                    e);
        }
        ReentrantLock settingUp =
                SETTING_UP.computeIfAbsent(fenceTable.address + " " + table, name -> new ReentrantLock());
        settingUp.lock();
        try {
            fenceTable.check(dataSource, create, querySeconds);
        } finally {
            settingUp.unlock();
        }
        return fenceTable;
    }

    private void check(DataSource dataSource, boolean create, int querySeconds) {
        SQLException missing = probe(dataSource, querySeconds);
        if (missing == null) {
            return;
        }
        if (!create) {
            throw new InvalidDataAccessResourceUsageException(missingTable(missing), missing);
        }
        SQLException creationFailure = null;
        try (Connection connection = dataSource.getConnection()) {
            ScriptUtils.executeSqlScript(connection, new ByteArrayResource(script().getBytes(StandardCharsets.UTF_8)));
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        } catch (SQLException e) {
            creationFailure = e;
        } catch (RuntimeException e) {
            // ScriptUtils wraps the driver's exception. Another instance creating the table at the same
            // moment fails this one's CREATE on PostgreSQL (a duplicate catalog row). Look again below.
            creationFailure = e.getCause() instanceof SQLException sql ? sql : new SQLException(e.getMessage(), e);
        }
        SQLException stillMissing = probeWhileOthersCreate(dataSource, querySeconds);
        if (stillMissing != null) {
            SQLException reason = creationFailure != null ? creationFailure : stillMissing;
            throw new InvalidDataAccessResourceUsageException(
                    "Could not create the fence table '" + statements.table + "' in " + address + " (" + causes(reason)
                            + "). " + missingTable(reason),
                    reason);
        }
    }

    /**
     * {@link #probe}, looked at again for up to about 2 s while it fails. Instances creating the table at the same
     * moment can fail each other's DDL and first reads (H2 reports a duplicate key on the CREATE), and the table is
     * there once the first creator commits.
     */
    private SQLException probeWhileOthersCreate(DataSource dataSource, int querySeconds) {
        SQLException missing = probe(dataSource, querySeconds);
        for (int look = 1; missing != null && look <= 8; look++) {
            try {
                Thread.sleep(50L * look);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return missing;
            }
            missing = probe(dataSource, querySeconds);
        }
        return missing;
    }

    /** Why the table cannot be read, or null when it can. A database that cannot be reached throws. */
    private SQLException probe(DataSource dataSource, int querySeconds) {
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement statement = FenceStatements.prepare(connection, statements.probe, querySeconds);
                    ResultSet rs = statement.executeQuery()) {
                return null;
            } catch (SQLException e) {
                if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
                    throw e;
                }
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
                return e;
            }
        } catch (SQLException e) {
            throw new DataAccessResourceFailureException(
                    "The fence store could not read the fence table '" + statements.table + "' in " + address + " ("
                            + causes(e) + "). Check that the database is running and reachable.",
                    e);
        }
    }

    /** The DDL of this database for this table. */
    String script() {
        String resource = statements.schemaResource();
        try (InputStream in = FenceTable.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + resource + " in the lock-fencing jar");
            }
            return statements.table.into(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + resource, e);
        }
    }

    String missingTable(SQLException cause) {
        return "The fence table '" + statements.table + "' is missing or lacks the expected columns in " + address
                + " (" + causes(cause) + "). Create it with the DDL in classpath:" + statements.schemaResource()
                + " (with ${table} = " + statements.table + "), e.g. from a Flyway or Liquibase migration, or let"
                + " distlock create it: JdbcFenceStore.builder(..).initializeSchema(true) (in Spring Boot:"
                + " distributed-lock.fencing.jdbc.initialize-schema=always). The DDL:\n" + script();
    }

    /**
     * The failure of a fence statement as a Spring data-access exception whose message says what was
     * being done, to which resource, for which lock, in which table and database.
     */
    DataAccessException failure(String task, SQLException e) {
        String described = task + " in the fence table '" + statements.table + "' at " + address;
        DataAccessException translated = translator.translate(described, null, e);
        if (translated instanceof BadSqlGrammarException) {
            return new InvalidDataAccessResourceUsageException(described + ": " + missingTable(e), e);
        }
        return translated != null ? translated : new UncategorizedSQLException(described, null, e);
    }

    /** The messages of a failure and its causes, as far as they add anything. */
    static String causes(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
            String message = t.getMessage() == null
                    ? t.getClass().getName()
                    : t.getMessage().strip();
            if (text.indexOf(message) < 0) {
                text.append(text.length() == 0 ? "" : ": ").append(message);
            }
        }
        return text.toString();
    }

    /** A JDBC URL as it may appear in messages, without user, password or other properties. */
    static String withoutCredentials(String url) {
        if (url == null) {
            return "unknown JDBC URL";
        }
        String bare = url;
        for (char separator : new char[] {'?', ';'}) {
            int at = bare.indexOf(separator);
            if (at >= 0) {
                bare = bare.substring(0, at);
            }
        }
        return USER_INFO.matcher(bare).replaceFirst("//");
    }
}
