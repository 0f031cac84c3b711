package dev.distlock.spring.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.WebApplicationContext;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/**
 * A stale token in a web request: {@code 409 Conflict} with an RFC 9457 problem detail, no stack
 * trace. Runs with Spring Boot's own transaction auto-configuration, so the fence advisor's place
 * inside the transaction advisor is the one applications get.
 */
@ExtendWith(OutputCaptureExtension.class)
class StaleTokenProblemDetailTest {

    /** Boot 4 and Boot 3.5 names of the transaction auto-configuration. */
    private static final Class<?> TRANSACTION_AUTO_CONFIGURATION = ClassUtils.resolveClassName(
            ClassUtils.isPresent(
                            "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration", null)
                    ? "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration"
                    : "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration",
            null);

    @RestController
    public static class OrderController {

        private final FencedStock.Orders orders;

        OrderController(FencedStock.Orders orders) {
            this.orders = orders;
        }

        @PostMapping("/orders/{sku}")
        public int order(@PathVariable("sku") String sku) {
            return orders.buyNow(sku, 1);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class Application {

        @Bean
        DataSource dataSource() {
            return new EmbeddedDatabaseBuilder()
                    .setType(EmbeddedDatabaseType.H2)
                    .generateUniqueName(true)
                    .build();
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        FencedStock.Stock stock(DataSource dataSource) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute(FencedStock.DDL.formatted("web_stock"));
            FencedStock.Stock stock = new FencedStock.Stock(jdbc, "web_stock");
            stock.restock("SKU-1", 100);
            return stock;
        }

        @Bean
        FencedStock.Orders orders(FencedStock.Stock stock) {
            return new FencedStock.Orders(stock);
        }

        @Bean
        OrderController orderController(FencedStock.Orders orders) {
            return new OrderController(orders);
        }
    }

    @Test
    void staleTokenAnswers409WithAProblemDetailAndRollsTheOrderBack(CapturedOutput output) {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        TRANSACTION_AUTO_CONFIGURATION,
                        DistributedLockAutoConfiguration.class,
                        FencingAutoConfiguration.class))
                .withUserConfiguration(Application.class)
                .withPropertyValues("distributed-lock.backend=memory")
                .run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup((WebApplicationContext) context)
                            .build();
                    mvc.perform(post("/orders/SKU-1")).andExpect(status().isOk());

                    // A newer holder registered with the resource: this instance's next hold is stale.
                    context.getBean(FenceStore.class)
                            .rebind(
                                    "stock:SKU-1",
                                    new FencingClaim("memory", "stock:SKU-1", FencingToken.of(Long.MAX_VALUE)));
                    mvc.perform(post("/orders/SKU-1"))
                            .andExpect(status().isConflict())
                            .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                            .andExpect(jsonPath("$.status").value(409))
                            .andExpect(jsonPath("$.title").value("Stale fencing token"))
                            .andExpect(jsonPath("$.resource").value("stock:SKU-1"))
                            .andExpect(jsonPath("$.lockKey").value("stock:SKU-1"))
                            .andExpect(jsonPath("$.highestToken").value(Long.MAX_VALUE))
                            .andExpect(jsonPath("$.detail")
                                    .value(org.hamcrest.Matchers.containsString("refused fencing token")));

                    assertThat(context.getBean(FencedStock.Stock.class).quantity("SKU-1"))
                            .as("the first order only")
                            .isEqualTo(99);
                    assertThat(output)
                            .doesNotContain("StaleFencingTokenException")
                            .doesNotContain("\tat ");
                });
    }
}
