package dev.distlock.fencing.jdbc;

import java.util.regex.Pattern;

/**
 * The fence table's name, checked to be a plain SQL identifier (optionally schema-qualified) before
 * it is placed into a statement. Table names cannot be bound as parameters.
 */
record FenceTableName(String value) {

    static final String DEFAULT = "distributed_lock_fence";

    private static final String IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]{0,62}";
    private static final Pattern VALID = Pattern.compile(IDENTIFIER + "(\\." + IDENTIFIER + ")?");

    FenceTableName {
        if (value == null || !VALID.matcher(value).matches()) {
            throw new IllegalArgumentException("Invalid fence table name '" + value + "': use letters, digits and"
                    + " underscores, starting with a letter or underscore, at most 63 characters, optionally"
                    + " qualified by a schema as schema.table");
        }
    }

    /** Puts the name where {@code ${table}} stands in a statement or script. */
    String into(String sql) {
        return sql.replace("${table}", value);
    }

    @Override
    public String toString() {
        return value;
    }
}
