package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.WebApplicationContext;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/** Lock contention in a web application: 423 Locked with a problem detail, no stack trace in the log. */
@ExtendWith(OutputCaptureExtension.class)
class LockNotAcquiredProblemDetailTest {

    private static final String[] PROPERTIES = {"distributed-lock.backend=memory", "distributed-lock.key-prefix=orders:"
    };

    /** A controller whose method waits 1500ms for the SKU's lock. */
    @RestController
    public static class StockController {

        @PostMapping("/stock/{sku}")
        @DistributedLock(name = "stock", key = "#sku", waitTime = "1500ms")
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

    @Configuration(proxyBeanMethods = false)
    @EnableWebFlux
    static class WebFluxApplication {
        @Bean
        StockController stockController() {
            return new StockController();
        }
    }

    @Test
    void springMvcAnswers423WithAProblemDetailAndRetryAfter(CapturedOutput output) {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
                .withUserConfiguration(MvcApplication.class)
                .withPropertyValues(PROPERTIES)
                .run(context -> whileHeldElsewhere(context, "stock:SKU-1", () -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup((WebApplicationContext) context)
                            .build();
                    mvc.perform(post("/stock/SKU-1"))
                            .andExpect(status().is(423))
                            .andExpect(header().string("Retry-After", "2"))
                            .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                            .andExpect(jsonPath("$.status").value(423))
                            .andExpect(jsonPath("$.title").value("Locked"))
                            .andExpect(jsonPath("$.lockKey").value("stock:SKU-1"))
                            .andExpect(jsonPath("$.detail")
                                    .value("The lock 'stock:SKU-1' is held by another operation; retry later."));
                }));
        assertThat(output).doesNotContain("ERROR").doesNotContain("LockNotAcquiredException");
    }

    @Test
    void webFluxAnswers423WithAProblemDetailAndRetryAfter(CapturedOutput output) {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
                .withUserConfiguration(WebFluxApplication.class)
                .withPropertyValues(PROPERTIES)
                .run(context -> whileHeldElsewhere(
                        context,
                        "stock:SKU-2",
                        () -> WebTestClient.bindToApplicationContext(context)
                                .build()
                                .post()
                                .uri("/stock/SKU-2")
                                .exchange()
                                .expectStatus()
                                .isEqualTo(423)
                                .expectHeader()
                                .valueEquals("Retry-After", "2")
                                .expectHeader()
                                .contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                                .expectBody()
                                .jsonPath("$.title")
                                .isEqualTo("Locked")
                                .jsonPath("$.lockKey")
                                .isEqualTo("stock:SKU-2")));
        assertThat(output).doesNotContain("ERROR").doesNotContain("LockNotAcquiredException");
    }

    @Test
    void theExceptionMessageNamesTheFullKeyAndTheWaitAsWritten() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
                .withUserConfiguration(MvcApplication.class)
                .withPropertyValues(PROPERTIES)
                .run(context -> whileHeldElsewhere(context, "stock:SKU-3", () -> {
                    Throwable failure = org.assertj.core.api.Assertions.catchThrowable(
                            () -> context.getBean(StockController.class).buy("SKU-3"));
                    assertThat(failure)
                            .isInstanceOf(dev.distlock.core.LockNotAcquiredException.class)
                            .hasMessageContaining("Lock 'orders:stock:SKU-3' on memory")
                            .hasMessageContaining("within 1500ms")
                            .hasMessageNotContaining("PT1.5S");
                }));
    }

    @Test
    void theProblemDetailsCanBeTurnedOff() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
                .withPropertyValues("distributed-lock.backend=memory", "distributed-lock.web.problem-details=false")
                .run(context -> assertThat(context).doesNotHaveBean("distributedLockProblemHandler"));
    }

    interface Call {
        void run() throws Exception;
    }

    /** Runs {@code call} while another thread holds {@code key}. */
    private static void whileHeldElsewhere(ApplicationContext context, String key, Call call) throws Exception {
        LockRegistry registry = context.getBean(LockRegistry.class);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
            try (LockHandle handle =
                    registry.obtain(key).tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
                held.countDown();
                done.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        try {
            call.run();
        } finally {
            done.countDown();
            holder.get(10, TimeUnit.SECONDS);
        }
    }
}
