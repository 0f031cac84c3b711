package dev.distlock.sample.inventory;

import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** The stock table. Fencing is not its concern: {@code @Fenced} on the caller checks the token first. */
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

    void write(String sku, int quantity) {
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

    /** Puts {@code quantity} on the shelf and forgets earlier sales. */
    void restock(String sku, int quantity) {
        jdbc.update("DELETE FROM sale WHERE sku = ?", sku);
        if (jdbc.update("UPDATE stock SET quantity = ? WHERE sku = ?", quantity, sku) == 0) {
            jdbc.update("INSERT INTO stock(sku, quantity) VALUES (?, ?)", sku, quantity);
        }
    }
}
