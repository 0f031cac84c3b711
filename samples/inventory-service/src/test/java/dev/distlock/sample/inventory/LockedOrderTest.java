package dev.distlock.sample.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.test.LockControl;
import dev.distlock.test.spring.AutoConfigureTestLocks;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/** An order whose SKU stays locked (by another instance) for the whole wait: the starter's 423 answer, as the README says. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "inventory.order-wait-time=300ms")
@AutoConfigureTestLocks
class LockedOrderTest {

    @Autowired
    LockControl locks;

    @Autowired
    StockRepository stock;

    @Value("${local.server.port}")
    int port;

    @Test
    void anOrderWhoseSkuStaysLockedAnswers423WithTheKeyTheActuatorLooksUp() throws Exception {
        stock.restock("SKU-LOCKED", 5);
        locks.holdElsewhere("stock:SKU-LOCKED", "inventory-service@host-2");

        HttpResponse<String> locked = send(HttpRequest.newBuilder(uri("/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"SKU-LOCKED\",\"quantity\":1}")));
        assertThat(locked.statusCode()).isEqualTo(423);
        assertThat(locked.headers().firstValue("Retry-After")).isPresent();
        assertThat(locked.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(locked.body()).contains("\"lockKey\":\"stock:SKU-LOCKED\"");

        HttpResponse<String> lookup = send(HttpRequest.newBuilder(uri("/actuator/distributedlocks/stock:SKU-LOCKED"))
                .GET());
        assertThat(lookup.body()).contains("\"held\":true").contains("inventory-service@host-2");
        assertThat(stock.quantity("SKU-LOCKED")).contains(5);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
