package dev.distlock.sample.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The default profile needs no server at all, so its health must not depend on one: the Redis
 * client is on the classpath for the redis profile, and here points at a loopback port where
 * nothing listens.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=1"})
class DefaultProfileHealthTest {

    @Value("${local.server.port}")
    int port;

    @Test
    void healthIsUpWithNoRedisServer() throws Exception {
        HttpResponse<String> health = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                                .timeout(Duration.ofSeconds(20))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());

        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).contains("\"distributedLock\"").doesNotContain("\"redis\"");
    }
}
