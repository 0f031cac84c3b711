package dev.distlock.sample.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.FencingClaim;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/** The sample on its default set-up: H2 for the stock, the JDBC lock backend on the same database. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class InventoryServiceTest {

    @Autowired
    LoadRun loadRun;

    @Autowired
    StockRepository stock;

    @Autowired
    LockRegistry registry;

    @Autowired
    FenceStore fences;

    @Value("${local.server.port}")
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void defaultProfileLocksWithTheJdbcBackend() {
        assertThat(registry.backend()).isEqualTo("jdbc");
    }

    @Test
    void loadRunWithTheLockNeverOversells() throws Exception {
        LoadRun.Result result = loadRun.run(300, 50, false);

        assertThat(result.errors()).as(result.summary()).isZero();
        assertThat(result.sold()).as(result.summary()).isEqualTo(50);
        assertThat(result.oversold()).as(result.summary()).isZero();
        assertThat(result.stockLeft()).isZero();
        assertThat(result.outOfStock()).isEqualTo(250);
    }

    @Test
    void unlockedControlOversells() throws Exception {
        LoadRun.Result result = loadRun.run(200, 20, true);

        assertThat(result.oversold()).as(result.summary()).isPositive();
    }

    @Test
    void postOrdersBuysAndReturnsTheFencingToken() throws Exception {
        stock.restock("SKU-HTTP", 3);

        HttpResponse<String> bought = post("/orders", "{\"sku\":\"SKU-HTTP\",\"quantity\":2}");
        assertThat(bought.statusCode()).isEqualTo(201);
        assertThat(bought.body()).contains("\"stockLeft\":1").containsPattern("\"token\":[1-9]");

        HttpResponse<String> tooMany = post("/orders", "{\"sku\":\"SKU-HTTP\",\"quantity\":2}");
        assertThat(tooMany.statusCode()).isEqualTo(409);
        assertThat(tooMany.body()).contains("Only 1 of SKU-HTTP left");
    }

    @Test
    void orderWhoseTokenIsBelowTheFenceIsRefusedWith409AndChangesNothing() throws Exception {
        stock.restock("SKU-FENCE", 10);
        // A newer holder of the SKU's lock (elsewhere) registered with the stock: this instance's next hold is stale.
        fences.rebind(
                "stock:SKU-FENCE",
                new FencingClaim(registry.backend(), "stock:SKU-FENCE", FencingToken.of(Long.MAX_VALUE)));

        HttpResponse<String> refused = post("/orders", "{\"sku\":\"SKU-FENCE\",\"quantity\":2}");
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(refused.body())
                .contains("\"title\":\"Stale fencing token\"")
                .contains("\"resource\":\"stock:SKU-FENCE\"");
        assertThat(stock.quantity("SKU-FENCE")).contains(10);
        assertThat(stock.sold("SKU-FENCE")).isZero();
    }

    private HttpResponse<String> post(String path, String json) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
