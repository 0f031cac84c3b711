package dev.distlock.sample.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.test.LockControl;
import dev.distlock.test.LockEvent;
import dev.distlock.test.spring.AutoConfigureTestLocks;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * Orders while the lock backend is down: the order rides the outage out while its wait lasts, and
 * answers 503 with a problem detail when the outage outlasts it, selling nothing; after the backend
 * comes back, orders go through again.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "inventory.order-wait-time=300ms")
@AutoConfigureTestLocks
class LockOutageOrderTest {

    @Autowired
    LockControl locks;

    @Autowired
    StockRepository stock;

    @Value("${local.server.port}")
    int port;

    @Test
    void anOrderDuringAnOutageLongerThanItsWaitAnswers503AndSellsNothing() throws Exception {
        stock.restock("SKU-OUTAGE", 5);
        locks.unreachableFor(Duration.ofMinutes(5));

        HttpResponse<String> refused = order("SKU-OUTAGE", 1);

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(refused.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(refused.body()).doesNotContain("simulated server");
        assertThat(stock.quantity("SKU-OUTAGE")).contains(5);
        assertThat(stock.sold("SKU-OUTAGE")).isZero();
    }

    @Test
    void anOrderRidesOutAFewFailedCallsAndSells() throws Exception {
        stock.restock("SKU-BLIP", 5);
        locks.unreachableForCalls(2);

        HttpResponse<String> bought = order("SKU-BLIP", 1);

        assertThat(bought.statusCode()).isEqualTo(201);
        assertThat(locks.history().events(LockEvent.Kind.BACKEND_FAILED)).hasSize(2);
        assertThat(stock.quantity("SKU-BLIP")).contains(4);
    }

    @Test
    void ordersSellAgainOnceTheOutageIsOver() throws Exception {
        stock.restock("SKU-BACK", 5);
        locks.unreachableFor(Duration.ofMinutes(5));
        assertThat(order("SKU-BACK", 1).statusCode()).isEqualTo(503);

        locks.advance(Duration.ofMinutes(5));

        assertThat(order("SKU-BACK", 1).statusCode()).isEqualTo(201);
        assertThat(stock.quantity("SKU-BACK")).contains(4);
    }

    private HttpResponse<String> order(String sku, int quantity) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"" + sku + "\",\"quantity\":" + quantity + "}"))
                .build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }
}
