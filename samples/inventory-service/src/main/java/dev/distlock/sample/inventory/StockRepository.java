package dev.distlock.sample.inventory;

import dev.distlock.core.FencingToken;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** The stock table. Writes carry a fencing token; the table refuses one lower than the last it took. */
@Repository
class StockRepository {

    private final JdbcTemplate jdbc;

    StockRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    Optional<Integer> quantity(String sku) {
        return jdbc.query("SELECT quantity FROM stock WHERE sku = ?", (rs, row) -> rs.getInt(1), sku).stream()
                .findFirst();
    }

    /**
     * Sets the quantity if {@code token} is not lower than the last token written for this SKU.
     *
     * @throws StaleTokenException when a newer lock holder has written meanwhile
     */
    void writeFenced(String sku, int quantity, FencingToken token) {
        int updated = jdbc.update(
                "UPDATE stock SET quantity = ?, last_token = ? WHERE sku = ? AND last_token <= ?",
                quantity,
                token.value(),
                sku,
                token.value());
        if (updated == 0) {
            throw new StaleTokenException(sku, token);
        }
    }

    /** The write without a token: what the unlocked control path uses. */
    void writeUnfenced(String sku, int quantity) {
        jdbc.update("UPDATE stock SET quantity = ? WHERE sku = ?", quantity, sku);
    }

    void recordSale(String sku, int quantity, Long token) {
        jdbc.update("INSERT INTO sale(sku, quantity, token) VALUES (?, ?, ?)", sku, quantity, token);
    }

    int sold(String sku) {
        Integer sold =
                jdbc.queryForObject("SELECT COALESCE(SUM(quantity), 0) FROM sale WHERE sku = ?", Integer.class, sku);
        return sold == null ? 0 : sold;
    }

    /** Puts {@code quantity} on the shelf and forgets earlier sales; keeps the last token, which must only rise. */
    void restock(String sku, int quantity) {
        jdbc.update("DELETE FROM sale WHERE sku = ?", sku);
        if (jdbc.update("UPDATE stock SET quantity = ? WHERE sku = ?", quantity, sku) == 0) {
            jdbc.update("INSERT INTO stock(sku, quantity, last_token) VALUES (?, ?, 0)", sku, quantity);
        }
    }
}
