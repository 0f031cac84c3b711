package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.spring.actuate.DistributedLockActuatorAutoConfiguration;
import dev.distlock.spring.actuate.DistributedLocksEndpoint;
import dev.distlock.spring.metrics.FailingLockRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.WebApplicationContext;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/**
 * What a web application and its scheduled jobs show when locking fails for another reason than
 * contention: a backend that does not answer, a key expression that fails or gives a blank key.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockFailureAnswersTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistributedLockAutoConfiguration.class, DistributedLockActuatorAutoConfiguration.class))
            .withUserConfiguration(MvcApplication.class)
            .withPropertyValues(
                    "distributed-lock.backend=memory",
                    "distributed-lock.key-prefix=shop:",
                    "management.endpoints.web.exposure.include=distributedlocks");

    @RestController
    public static class StockController {

        @PostMapping("/stock/{sku}")
        @DistributedLock(name = "stock", key = "#sku", waitTime = "300ms")
        public String buy(@PathVariable("sku") String sku) {
            return "bought " + sku;
        }

        @PostMapping("/shelf/{sku}")
        @DistributedLock(name = "shelf", key = "#sku.substring(100)")
        public String shelve(@PathVariable("sku") String sku) {
            return "shelved " + sku;
        }
    }

    /** A job a scheduler runs; called directly here, as the scheduler would. */
    public static class NightlyJob {

        private final AtomicInteger runs = new AtomicInteger();

        /** How often the body ran (a method, as the bean is a proxy). */
        public int runs() {
            return runs.get();
        }

        @Scheduled(fixedDelay = 60_000)
        @DistributedLock(name = "nightly")
        public void run() {
            runs.incrementAndGet();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class MvcApplication {
        @Bean
        StockController stockController() {
            return new StockController();
        }

        @Bean
        NightlyJob nightlyJob() {
            return new NightlyJob();
        }
    }

    @Test
    void anUnreachableBackendAnswers503WithAProblemDetailAndRetryAfterAndOneWarning(CapturedOutput output) {
        runner.withBean("lockRegistry", LockRegistry.class, () -> new FailingLockRegistry("shop:"))
                .withPropertyValues("distributed-lock.startup-check.mode=off")
                .run(context -> {
                    MockMvc mvc = mvc(context);
                    for (int i = 0; i < 3; i++) {
                        mvc.perform(post("/stock/SKU-1"))
                                .andExpect(status().isServiceUnavailable())
                                .andExpect(header().string("Retry-After", "5"))
                                .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                                .andExpect(jsonPath("$.status").value(503))
                                .andExpect(jsonPath("$.title").value("Service Unavailable"))
                                .andExpect(jsonPath("$.detail").value("The lock service is unavailable; retry later."));
                    }
                });
        assertThat(output.getAll().lines().filter(line -> line.contains("WARN") && line.contains("is unavailable")))
                .as("warnings for one outage")
                .hasSize(1)
                .allSatisfy(line -> assertThat(line).contains("failing at nowhere:1"));
        assertThat(output).doesNotContain("ERROR").doesNotContain("\tat ");
    }

    @Test
    void aScheduledRunWhoseBackendIsUnreachableLogsOneLineAndDoesNotRun(CapturedOutput output) {
        runner.withBean("lockRegistry", LockRegistry.class, () -> new FailingLockRegistry("shop:"))
                .withPropertyValues("distributed-lock.startup-check.mode=off")
                .run(context -> {
                    NightlyJob job = context.getBean(NightlyJob.class);
                    job.run();
                    job.run();
                    assertThat(job.runs()).isZero();
                });
        assertThat(output.getAll().lines().filter(line -> line.contains("Skipped this run of scheduled")))
                .as("one line per run")
                .hasSize(2)
                .allSatisfy(line -> assertThat(line).contains("NightlyJob.run()", "nowhere:1"));
        assertThat(output).doesNotContain("ERROR").doesNotContain("\tat ");
    }

    @Test
    void aKeyExpressionThatFailsNamesTheMethodAndExpressionAndAnswers500WithoutThem() {
        runner.run(context -> {
            Throwable failure =
                    catchThrowable(() -> context.getBean(StockController.class).shelve("x"));
            assertThat(failure)
                    .isInstanceOf(LockKeyException.class)
                    .hasMessageContaining("StockController.shelve()")
                    .hasMessageContaining("#sku.substring(100)")
                    .hasMessageContaining("StringIndexOutOfBoundsException")
                    .hasRootCauseInstanceOf(StringIndexOutOfBoundsException.class);

            mvc(context)
                    .perform(post("/shelf/x"))
                    .andExpect(status().isInternalServerError())
                    .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                    .andExpect(jsonPath("$.detail")
                            .value("The lock key of StockController.shelve() could not be computed."));
        });
    }

    @Test
    void aKeyThatEvaluatesToABlankStringIsRefused() {
        runner.run(context -> {
            StockController controller = context.getBean(StockController.class);
            assertThat(catchThrowable(() -> controller.buy(" ")))
                    .isInstanceOf(LockKeyException.class)
                    .hasMessageContaining("StockController.buy()")
                    .hasMessageContaining("'#sku'")
                    .hasMessageContaining("blank");
            assertThat(catchThrowable(() -> controller.buy(""))).isInstanceOf(LockKeyException.class);
            assertThat(controller.buy("SKU-9")).isEqualTo("bought SKU-9");
        });
    }

    @Test
    void the423BodyNamesTheKeyTheActuatorLookupFindsHeld() {
        runner.run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            // Held by another thread: the request runs on this one and would join a hold of its own.
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
                try (LockHandle handle = registry.obtain("stock:SKU-2")
                        .tryAcquire(Duration.ofSeconds(5))
                        .orElseThrow()) {
                    held.countDown();
                    done.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
            try {
                String body = mvc(context)
                        .perform(post("/stock/SKU-2"))
                        .andExpect(status().is(423))
                        .andExpect(jsonPath("$.lockKey").value("stock:SKU-2"))
                        .andReturn()
                        .getResponse()
                        .getContentAsString();
                assertThat(body).doesNotContain("shop:");

                DistributedLocksEndpoint.KeyHolders lookup =
                        context.getBean(DistributedLocksEndpoint.class).holder("stock:SKU-2".split("/"));
                assertThat(lookup.registries().values())
                        .singleElement()
                        .satisfies(found -> assertThat(found.held()).isTrue());
            } finally {
                done.countDown();
                holder.get(10, TimeUnit.SECONDS);
            }
        });
    }

    private static MockMvc mvc(org.springframework.context.ApplicationContext context) {
        return MockMvcBuilders.webAppContextSetup((WebApplicationContext) context)
                .build();
    }
}
