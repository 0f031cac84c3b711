package dev.distlock.fencing.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The column form of fencing. An update of one row of the application's own table that keeps the
 * highest token beside the data. It sets the columns and the token column, adding {@code AND
 * <token column> <= ?} to the row's condition, and throws {@link StaleTokenException} when the row
 * exists with a higher token.
 *
 * <p>It protects a write that does not depend on an earlier read (setting a status, a blind
 * overwrite). A read-modify-write needs the fence raised before the read ({@link JdbcFenceStore}).
 * A newer holder may read the same value before this write lands, and both writes pass the check.
 *
 * <pre>{@code
 * FencedUpdate.table("stock").set("quantity", 7).where("sku", sku).execute(jdbcTemplate, claim);
 * }</pre>
 *
 * Instances are immutable. Each {@code set}/{@code where} returns a new one.
 */
public final class FencedUpdate {

    /** The token column when none is named. */
    public static final String DEFAULT_TOKEN_COLUMN = "last_token";

    private static final String IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]{0,62}";
    private static final Pattern TABLE = Pattern.compile(IDENTIFIER + "(\\." + IDENTIFIER + ")?");
    private static final Pattern COLUMN = Pattern.compile(IDENTIFIER);

    private final String table;
    private final String tokenColumn;
    private final List<Column> sets;
    private final List<Column> wheres;

    private record Column(String name, Object value) {}

    private FencedUpdate(String table, String tokenColumn, List<Column> sets, List<Column> wheres) {
        this.table = table;
        this.tokenColumn = tokenColumn;
        this.sets = sets;
        this.wheres = wheres;
    }

    /** An update of {@code table}, whose token column is {@value #DEFAULT_TOKEN_COLUMN}. */
    public static FencedUpdate table(String table) {
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("Invalid table name '" + table + "' for a fenced update: use letters,"
                    + " digits and underscores, optionally qualified by a schema as schema.table");
        }
        return new FencedUpdate(table, DEFAULT_TOKEN_COLUMN, List.of(), List.of());
    }

    /** The column that keeps the highest token that wrote the row (a BIGINT). */
    public FencedUpdate tokenColumn(String column) {
        return new FencedUpdate(table, column(column), sets, wheres);
    }

    /** Sets {@code column} to {@code value} (replacing an earlier value for the same column). */
    public FencedUpdate set(String column, Object value) {
        return new FencedUpdate(table, tokenColumn, with(sets, new Column(column(column), value)), wheres);
    }

    /** Selects the row by {@code column = value} (replacing an earlier condition on the column). Together they name one row. */
    public FencedUpdate where(String column, Object value) {
        Objects.requireNonNull(
                value,
                () -> "The value of where column '" + column + "' of a fenced update of " + table
                        + " is null; name the row by non-null values");
        return new FencedUpdate(table, tokenColumn, sets, with(wheres, new Column(column(column), value)));
    }

    /** The update statement, with a parameter per set value, the token, each where value and the token. */
    public String sql() {
        requireComplete();
        return "UPDATE " + table + " SET "
                + sets.stream().map(c -> c.name() + " = ?").collect(Collectors.joining(", "))
                + ", " + tokenColumn + " = ? WHERE " + condition()
                + " AND (" + tokenColumn + " IS NULL OR " + tokenColumn + " <= ?)";
    }

    /**
     * Runs the update with {@code jdbc} (a {@code JdbcTemplate} joins the current Spring transaction).
     *
     * @return 1 when the row was written, 0 when there is no such row
     * @throws StaleTokenException when the row holds a higher token than {@code claim}'s
     */
    public int execute(JdbcOperations jdbc, FencingClaim claim) {
        int updated = jdbc.update(sql(), parameters(claim).toArray());
        if (updated > 0) {
            return updated;
        }
        List<Long> tokens =
                jdbc.query(selectTokens(), (rs, row) -> rs.getObject(1) == null ? 0L : rs.getLong(1), whereValues());
        return refuseIfNewer(tokens, claim);
    }

    /** As {@link #execute(JdbcOperations, FencingClaim)}, with a {@code JdbcClient}. */
    public int execute(JdbcClient jdbc, FencingClaim claim) {
        int updated = jdbc.sql(sql()).params(parameters(claim)).update();
        if (updated > 0) {
            return updated;
        }
        List<Long> tokens = jdbc.sql(selectTokens())
                .params(List.of(whereValues()))
                .query((rs, row) -> rs.getObject(1) == null ? 0L : rs.getLong(1))
                .list();
        return refuseIfNewer(tokens, claim);
    }

    /** As {@link #execute(JdbcOperations, FencingClaim)}, on a plain JDBC connection. */
    public int execute(Connection connection, FencingClaim claim) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql())) {
            bind(statement, parameters(claim));
            int updated = statement.executeUpdate();
            if (updated > 0) {
                return updated;
            }
        }
        List<Long> tokens = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(selectTokens())) {
            bind(statement, List.of(whereValues()));
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    tokens.add(rs.getObject(1) == null ? 0L : rs.getLong(1));
                }
            }
        }
        return refuseIfNewer(tokens, claim);
    }

    /** What a refusal names as the resource, the table and the row's condition. */
    public String resource() {
        return table + "["
                + wheres.stream().map(c -> c.name() + "=" + c.value()).collect(Collectors.joining(", ")) + "]";
    }

    private int refuseIfNewer(List<Long> tokens, FencingClaim claim) {
        long highest = tokens.stream().mapToLong(Long::longValue).max().orElse(0L);
        if (highest > claim.token().value()) {
            throw new StaleTokenException(resource(), claim.lockKey(), claim.token(), FencingToken.of(highest));
        }
        return 0; // no such row (or one inserted after the update looked)
    }

    private List<Object> parameters(FencingClaim claim) {
        Objects.requireNonNull(claim, "claim");
        List<Object> parameters = new ArrayList<>();
        sets.forEach(c -> parameters.add(c.value()));
        parameters.add(claim.token().value());
        wheres.forEach(c -> parameters.add(c.value()));
        parameters.add(claim.token().value());
        return parameters;
    }

    private Object[] whereValues() {
        return wheres.stream().map(Column::value).toArray();
    }

    private String selectTokens() {
        return "SELECT " + tokenColumn + " FROM " + table + " WHERE " + condition();
    }

    private String condition() {
        return wheres.stream().map(c -> c.name() + " = ?").collect(Collectors.joining(" AND "));
    }

    private void requireComplete() {
        if (sets.isEmpty() || wheres.isEmpty()) {
            throw new IllegalStateException("A fenced update of " + table + " needs at least one set(..) and one"
                    + " where(..) naming the row; has " + sets.size() + " and " + wheres.size());
        }
    }

    private static void bind(PreparedStatement statement, List<Object> values) throws SQLException {
        for (int i = 0; i < values.size(); i++) {
            statement.setObject(i + 1, values.get(i));
        }
    }

    private static String column(String name) {
        if (name == null || !COLUMN.matcher(name).matches()) {
            throw new IllegalArgumentException("Invalid column name '" + name + "' for a fenced update: use letters,"
                    + " digits and underscores, starting with a letter or underscore");
        }
        return name;
    }

    private static List<Column> with(List<Column> columns, Column column) {
        List<Column> copy = new ArrayList<>(columns);
        copy.removeIf(c -> c.name().equalsIgnoreCase(column.name()));
        copy.add(column);
        return List.copyOf(copy);
    }
}
