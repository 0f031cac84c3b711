package dev.distlock.spring.fencing.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.MemoryFenceStore;
import dev.distlock.fencing.http.FenceHeader;
import dev.distlock.fencing.http.FencedEndpoint;
import dev.distlock.fencing.http.FencedEndpointInterceptor;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockContext;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Two Spring contexts over real HTTP: a client under {@code @DistributedLock} holds (memory backend)
 * calls a service whose endpoints are fenced, through the RestClient, RestTemplate and WebClient that
 * Spring Boot builds.
 */
class FencedHttpRoundTripIT {

    private static ConfigurableApplicationContext server;
    private static ConfigurableApplicationContext client;
    private static Caller caller;

    @BeforeAll
    static void start() {
        server = new SpringApplicationBuilder(ServerApplication.class)
                .web(WebApplicationType.SERVLET)
                .properties(
                        "server.port=0",
                        "server.address=127.0.0.1",
                        "distributed-lock.backend=memory",
                        "distributed-lock.fencing.http.server.paths[0].pattern=/plain/{id}",
                        "distributed-lock.fencing.http.server.paths[0].resource=plain:{id}")
                .run();
        String base = "http://127.0.0.1:" + server.getBean(Environment.class).getProperty("local.server.port");
        client = new SpringApplicationBuilder(ClientApplication.class)
                .web(WebApplicationType.NONE)
                .properties("distributed-lock.backend=memory", "fenced.base-url=" + base)
                .run();
        caller = client.getBean(Caller.class);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void clearLedger() {
        server.getBean(Ledger.class).entries.clear();
    }

    @Test
    void restClientUnderAHoldSendsTheHoldsTokenAndTheEndpointAdmitsIt() {
        ResponseEntity<String> response = caller.writeWithRestClient("1", "a");

        assertThat(response.getStatusCode().value()).isEqualTo(200);
        Ledger ledger = server.getBean(Ledger.class);
        assertThat(ledger.entries).containsExactly("1:a");
        Fence fence = server.getBean(FenceStore.class).fenceOf("ledger:1").orElseThrow();
        assertThat(fence.backend()).isEqualTo("memory");
        assertThat(fence.lockKey()).isEqualTo("ledger:1");
        assertThat(fence.highest()).isEqualTo(caller.lastToken());
        assertThat(ledger.headers.get(ledger.headers.size() - 1))
                .isEqualTo("backend=memory; key=\"ledger:1\"; token="
                        + caller.lastToken().value());
    }

    @Test
    void restTemplateAndWebClientUnderAHoldSendTheHeaderToo() {
        assertThat(caller.writeWithRestTemplate("2", "b").getStatusCode().value())
                .isEqualTo(200);
        assertThat(caller.writeWithWebClient("2", "c").value()).isEqualTo(200);
        assertThat(server.getBean(Ledger.class).entries).containsExactly("2:b", "2:c");
    }

    @Test
    void aFencedEndpointCalledWithoutAHoldAnswers428NamingTheHeader() {
        ResponseEntity<String> response = caller.writeWithoutHold("3", "x");

        assertThat(response.getStatusCode().value()).isEqualTo(428);
        assertThat(response.getHeaders().getContentType().isCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                .isTrue();
        assertThat(response.getBody())
                .contains("\"status\":428")
                .contains("\"header\":\"Distlock-Fence\"")
                .contains("\"resource\":\"ledger:3\"");
        assertThat(server.getBean(Ledger.class).entries).isEmpty();
    }

    @Test
    void aHeaderThatDoesNotParseAnswers400NamingTheHeader() {
        ResponseEntity<String> response = caller.writeWithHeader("4", "x", "backend=redis; token=12");

        assertThat(response.getStatusCode().value()).isEqualTo(400);
        assertThat(response.getBody())
                .contains("\"status\":400")
                .contains("Distlock-Fence")
                .contains("no 'key' parameter");
        assertThat(server.getBean(Ledger.class).entries).isEmpty();
    }

    @Test
    void aHolderPausedPastItsLeaseIsRefusedWith409AfterTheNextHolderWrote() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch paused = new CountDownLatch(1);
            CountDownLatch nextWrote = new CountDownLatch(1);
            Future<ResponseEntity<String>> stale =
                    threads.submit(() -> caller.writeAfterPause("5", "old", paused, nextWrote));
            assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();
            // The paused holder's 500 ms fixed lease runs out; the next holder gets the lock and writes.
            Future<ResponseEntity<String>> next = threads.submit(() -> caller.writeWithRestClientWaiting("5", "new"));
            assertThat(next.get(30, TimeUnit.SECONDS).getStatusCode().value()).isEqualTo(200);
            nextWrote.countDown();

            ResponseEntity<String> refused = stale.get(30, TimeUnit.SECONDS);
            assertThat(refused.getStatusCode().value()).isEqualTo(409);
            assertThat(refused.getBody())
                    .contains("\"status\":409")
                    .contains("\"resource\":\"ledger:5\"")
                    .contains("\"lockKey\":\"ledger:5\"")
                    .contains("stale fencing token");
            assertThat(server.getBean(Ledger.class).entries).containsExactly("5:new");
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aPathFencedByPropertiesIsCheckedLikeAnAnnotatedOne() {
        assertThat(caller.writePlainWithoutHold("6").getStatusCode().value()).isEqualTo(428);
        assertThat(caller.writePlain("6").getStatusCode().value()).isEqualTo(200);
        assertThat(server.getBean(FenceStore.class).fenceOf("plain:6")).isPresent();
    }

    @Test
    void aTokenOfAnotherLockKeyIsRefusedWith409() {
        assertThat(caller.writeWithRestClient("7", "a").getStatusCode().value()).isEqualTo(200);
        ResponseEntity<String> response =
                caller.writeWithHeader("7", "x", "backend=memory; key=\"other\"; token=" + Long.MAX_VALUE);

        assertThat(response.getStatusCode().value()).isEqualTo(409);
        assertThat(response.getBody()).contains("\"guardedBy\":\"ledger:7\"").contains("rebind");
    }

    /** The service: a ledger whose writes are fenced per id. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ServerApplication {

        @Bean
        Ledger ledger() {
            return new Ledger();
        }

        @Bean
        FenceStore fenceStore() {
            return new MemoryFenceStore();
        }

        @Bean
        LedgerController ledgerController(Ledger ledger) {
            return new LedgerController(ledger);
        }
    }

    static final class Ledger {
        final List<String> entries = new CopyOnWriteArrayList<>();
        final List<String> headers = new CopyOnWriteArrayList<>();
    }

    @RestController
    static class LedgerController {

        private final Ledger ledger;

        LedgerController(Ledger ledger) {
            this.ledger = ledger;
        }

        @PostMapping("/ledger/{id}")
        @FencedEndpoint("ledger:{id}")
        String write(@PathVariable("id") String id, @RequestBody String entry, HttpServletRequest request) {
            assertThat(FencedEndpointInterceptor.admittedClaim(request)).isPresent();
            ledger.headers.add(request.getHeader(FenceHeader.NAME));
            ledger.entries.add(id + ":" + entry);
            return "ok";
        }

        @PostMapping("/plain/{id}")
        String plain(@PathVariable("id") String id) {
            return "ok";
        }
    }

    /** The calling service: writes to the ledger under the lock of the ledger's id. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ClientApplication {

        @Bean
        Caller caller(
                RestClient.Builder restClients,
                WebClient.Builder webClients,
                org.springframework.beans.factory.BeanFactory beans,
                Environment environment) {
            String base = environment.getRequiredProperty("fenced.base-url");
            return new Caller(
                    restClients
                            .baseUrl(base)
                            .defaultStatusHandler(HttpStatusCode::isError, (req, res) -> {})
                            .build(),
                    RestTemplates.build(beans, base),
                    webClients.baseUrl(base).build());
        }
    }

    public static class Caller {

        private final RestClient rest;
        private final RestTemplate template;
        private final WebClient web;
        private volatile dev.distlock.core.FencingToken lastToken;

        Caller(RestClient rest, RestTemplate template, WebClient web) {
            this.rest = rest;
            this.template = template;
            this.web = web;
        }

        /** The token of the last writeWithRestClient hold (a method: the bean is a proxy). */
        public dev.distlock.core.FencingToken lastToken() {
            return lastToken;
        }

        @DistributedLock(name = "ledger", key = "#id")
        public ResponseEntity<String> writeWithRestClient(String id, String entry) {
            lastToken = LockContext.currentToken();
            return post(id, entry);
        }

        @DistributedLock(name = "ledger", key = "#id", waitTime = "20s")
        public ResponseEntity<String> writeWithRestClientWaiting(String id, String entry) {
            return post(id, entry);
        }

        @DistributedLock(name = "ledger", key = "#id")
        public ResponseEntity<String> writeWithRestTemplate(String id, String entry) {
            return template.postForEntity("/ledger/" + id, entry, String.class);
        }

        @DistributedLock(name = "ledger", key = "#id")
        public HttpStatusCode writeWithWebClient(String id, String entry) {
            return web.post()
                    .uri("/ledger/{id}", id)
                    .bodyValue(entry)
                    .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode()))
                    .block(Duration.ofSeconds(30));
        }

        @DistributedLock(name = "ledger", key = "#id", leaseTime = "500ms")
        public ResponseEntity<String> writeAfterPause(
                String id, String entry, CountDownLatch paused, CountDownLatch nextWrote) throws InterruptedException {
            paused.countDown();
            if (!nextWrote.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the next holder did not write within 30 s");
            }
            return post(id, entry);
        }

        public ResponseEntity<String> writeWithoutHold(String id, String entry) {
            return post(id, entry);
        }

        @DistributedLock(name = "ledger", key = "#id")
        public ResponseEntity<String> writeWithHeader(String id, String entry, String header) {
            return rest.post()
                    .uri("/ledger/{id}", id)
                    .header(FenceHeader.NAME, header)
                    .body(entry)
                    .retrieve()
                    .toEntity(String.class);
        }

        @DistributedLock(name = "plain", key = "#id")
        public ResponseEntity<String> writePlain(String id) {
            return rest.post().uri("/plain/{id}", id).retrieve().toEntity(String.class);
        }

        public ResponseEntity<String> writePlainWithoutHold(String id) {
            return rest.post().uri("/plain/{id}", id).retrieve().toEntity(String.class);
        }

        private ResponseEntity<String> post(String id, String entry) {
            return rest.post().uri("/ledger/{id}", id).body(entry).retrieve().toEntity(String.class);
        }
    }
}
