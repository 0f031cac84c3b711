package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.redis.RedisServers;
import dev.distlock.spring.actuate.DistributedLockActuatorAutoConfiguration;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.WebApplicationContext;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/**
 * A web application on Redis whose redis-server dies under it, twice: every locked request answers
 * {@code 503} with a problem detail and {@code Retry-After}, each outage logs one WARN, health names
 * the backend and its address, and requests succeed again soon after redis-server is back.
 */
@ExtendWith(OutputCaptureExtension.class)
class WebOutageIT {

    /** Lettuce reconnects at most this far apart (RedisClientTuning). */
    private static final Duration RECONNECT_DELAY = Duration.ofMillis(500);

    /**
     * How soon after redis-server is back a request succeeds again: typically well under a second (printed), the
     * rest is room for a loaded machine, it is no benchmark. That room is the margin of a {@link TimingBound}: an
     * overrun while this JVM stalled longer than that is measured again, after an outage of its own.
     */
    private static final Duration RECOVERY = Duration.ofSeconds(10);

    private RedisServers servers;
    private ManagedProcess redis;

    @RestController
    public static class StockController {

        @PostMapping("/stock/{sku}")
        @DistributedLock(name = "stock", key = "#sku", waitTime = "500ms")
        public String buy(@PathVariable("sku") String sku) {
            return "bought " + sku;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class MvcApplication {
        @Bean
        StockController stockController() {
            return new StockController();
        }
    }

    @BeforeEach
    void startRedis() {
        servers = new RedisServers();
        redis = servers.start();
    }

    @AfterEach
    void stopRedis() {
        servers.close();
    }

    @Test
    void requestsDuringAnOutageAnswer503AndEachOutageWarnsOnceAndHealthNamesTheBackend(CapturedOutput output) {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        bootRedisAutoConfiguration(),
                        DistributedLockAutoConfiguration.class,
                        DistributedLockActuatorAutoConfiguration.class))
                .withUserConfiguration(MvcApplication.class)
                .withPropertyValues(
                        "distributed-lock.backend=redis",
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.port())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup((WebApplicationContext) context)
                            .build();
                    assertThat(buy(mvc).getStatus()).isEqualTo(200);

                    AtomicInteger outages = new AtomicInteger();
                    for (int outage = 1; outage <= 2; outage++) {
                        TimingBound.of(
                                        "WebOutageIT.requestsSucceedSoonAfterOutage" + outage,
                                        RECOVERY.minus(RECONNECT_DELAY))
                                .check(() -> {
                                    redis.kill();
                                    int seen = outages.incrementAndGet();
                                    for (int i = 0; i < 5; i++) {
                                        MockHttpServletResponse response = buy(mvc);
                                        assertThat(response.getStatus()).isEqualTo(503);
                                        assertThat(response.getHeader("Retry-After"))
                                                .isEqualTo("5");
                                        assertThat(response.getContentType()).startsWith("application/problem+json");
                                        assertThat(response.getContentAsString())
                                                .contains("\"title\":\"Service Unavailable\"")
                                                .doesNotContain("127.0.0.1");
                                    }
                                    assertThat(warnings(output))
                                            .as("WARN lines after outage " + seen)
                                            .hasSize(seen);

                                    Map<String, Object> health = healthDetails(context);
                                    assertThat(health.get("status")).isEqualTo("DOWN");
                                    assertThat(health).containsEntry("backend", "redis");
                                    assertThat(health).containsEntry("address", "127.0.0.1:" + redis.port());
                                    assertThat((String) health.get("error"))
                                            .contains("redis backend at 127.0.0.1:" + redis.port())
                                            .doesNotContain("lock 'null'");

                                    redis.restart();
                                    long back = System.nanoTime();
                                    int status = 0;
                                    while (System.nanoTime() - back < TimeUnit.SECONDS.toNanos(30)) {
                                        status = buy(mvc).getStatus();
                                        if (status == 200) {
                                            break;
                                        }
                                        Thread.sleep(20);
                                    }
                                    Timed recovery = Timed.since(back, RECOVERY);
                                    System.out.println("Web outage " + seen + ": first 200 "
                                            + recovery.took().toMillis()
                                            + " ms after redis-server accepted connections again");
                                    assertThat(status).isEqualTo(200);
                                    return recovery;
                                });
                    }
                });
        assertThat(output).doesNotContain("\tat dev.distlock");
    }

    private static List<String> warnings(CapturedOutput output) {
        return output.getAll()
                .lines()
                .filter(line -> line.contains("WARN") && line.contains("Lock backend redis at"))
                .toList();
    }

    private static MockHttpServletResponse buy(MockMvc mvc) throws Exception {
        return mvc.perform(post("/stock/SKU-1")).andReturn().getResponse();
    }

    /** The indicator's status and details, read by reflection: its type depends on the Boot line. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> healthDetails(ApplicationContext context) throws Exception {
        Object indicator = context.getBean("distributedLockHealthIndicator");
        Method healthMethod = indicator.getClass().getMethod("health");
        Object health = healthMethod.invoke(indicator);
        Object status = health.getClass().getMethod("getStatus").invoke(health);
        Map<String, Object> details = new java.util.LinkedHashMap<>(
                (Map<String, Object>) health.getClass().getMethod("getDetails").invoke(health));
        details.put("status", status.getClass().getMethod("getCode").invoke(status));
        return details;
    }

    /** Spring Boot's Redis auto-configuration: its class moved between Boot 3.5 and 4.x. */
    private static Class<?> bootRedisAutoConfiguration() {
        for (String name : List.of(
                "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
                "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration")) {
            if (ClassUtils.isPresent(name, null)) {
                return ClassUtils.resolveClassName(name, null);
            }
        }
        throw new IllegalStateException("No Spring Boot Redis auto-configuration on the classpath");
    }
}
