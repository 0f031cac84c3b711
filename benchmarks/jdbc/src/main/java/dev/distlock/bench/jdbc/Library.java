package dev.distlock.bench.jdbc;

import java.time.Duration;
import javax.sql.DataSource;

/** A lock library under test: one {@link Contender} per pool, standing for one JVM. */
interface Library {

    String name();

    /** Creates the library's table (called once per database, before any contender). */
    void createTable(DataSource pool, String product) throws Exception;

    Contender open(DataSource pool) throws Exception;

    void dropTable(DataSource pool) throws Exception;

    /** One instance of the library on one pool. */
    interface Contender extends AutoCloseable {

        /** The lock on {@code key}, waiting up to {@code wait} for it; null when the wait ran out. */
        Held tryAcquire(String key, Duration wait) throws Exception;

        @Override
        void close() throws Exception;
    }

    /** A held lock; closing it releases it. */
    interface Held extends AutoCloseable {
        @Override
        void close() throws Exception;
    }
}
