package dev.distlock.sample.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The fenced write the README's quick start shows, run as written against a table: a hold may
 * write more than once with its token, and a write with an older token changes nothing.
 */
class ReadmeFencedWriteTest {

    private static final Pattern UPDATE = Pattern.compile("(UPDATE stock SET .*)$", Pattern.MULTILINE);

    @Test
    void theQuickStartsFencedUpdateLetsAHoldWriteTwiceAndRefusesAnOlderToken() throws Exception {
        String sql = readmeUpdate();
        try (Connection db = DriverManager.getConnection("jdbc:h2:mem:readme-fenced-write", "sa", "");
                Statement ddl = db.createStatement()) {
            ddl.execute("CREATE TABLE stock (sku VARCHAR(64) PRIMARY KEY, quantity INT NOT NULL,"
                    + " last_token BIGINT NOT NULL DEFAULT 0)");
            ddl.execute("INSERT INTO stock (sku, quantity, last_token) VALUES ('SKU-1', 100, 0)");

            assertThat(buy(db, sql, 7)).as("the first write of hold 7").isEqualTo(1);
            assertThat(buy(db, sql, 7)).as("a second write of the same hold").isEqualTo(1);
            assertThat(buy(db, sql, 5)).as("a write of an older hold").isZero();
        }
    }

    /** The README's statement, with its parameters in the order it names them. */
    private static String readmeUpdate() {
        for (String snippet : ReadmeSnippets.load().all("java")) {
            Matcher matcher = UPDATE.matcher(snippet);
            if (matcher.find()) {
                return matcher.group(1).trim();
            }
        }
        throw new AssertionError("no UPDATE stock statement in the README's quick start");
    }

    private static int buy(Connection db, String sql, long token) throws Exception {
        // quantity = quantity - ?, last_token = ? WHERE sku = ? AND last_token <op> ?
        try (PreparedStatement update = db.prepareStatement(sql)) {
            update.setInt(1, 1);
            update.setLong(2, token);
            update.setString(3, "SKU-1");
            update.setLong(4, token);
            return update.executeUpdate();
        }
    }
}
