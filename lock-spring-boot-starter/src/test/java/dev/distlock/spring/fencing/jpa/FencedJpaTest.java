package dev.distlock.spring.fencing.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.DistributedLockAutoConfiguration;
import dev.distlock.spring.fencing.FencingAutoConfiguration;
import dev.distlock.spring.fencing.StaleFencingTokenException;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.util.ClassUtils;

/**
 * {@code @Fenced} methods writing through JPA (Hibernate on H2, Spring Boot's JPA auto-configuration
 * and its {@link JpaTransactionManager}): a holder whose lease ran out is refused and its JPA write
 * rolls back, also when its code catches the refusal inside the transaction and writes anyway.
 */
class FencedJpaTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    bootAutoConfiguration(
                            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
                            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration"),
                    bootAutoConfiguration(
                            "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
                            "org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration"),
                    DistributedLockAutoConfiguration.class,
                    FencingAutoConfiguration.class))
            .withUserConfiguration(Beans.class)
            .withPropertyValues(
                    "distributed-lock.backend=memory",
                    "spring.jpa.hibernate.ddl-auto=create-drop",
                    "test.lease-time=300ms");

    /** Spring Boot's auto-configuration classes moved between Boot 3.5 and 4.x. */
    private static Class<?> bootAutoConfiguration(String boot4, String boot35) {
        for (String name : List.of(boot4, boot35)) {
            if (ClassUtils.isPresent(name, null)) {
                return ClassUtils.resolveClassName(name, null);
            }
        }
        throw new IllegalStateException("Neither " + boot4 + " nor " + boot35 + " is on the classpath");
    }

    // The auto-configuration package is where Hibernate finds the entity.
    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage
    @EnableTransactionManagement
    static class Beans {

        @Bean
        FencedJpaStock.Guard guard() {
            return new FencedJpaStock.Guard();
        }

        @Bean
        FencedJpaStock.Stock stock(EntityManagerFactory entityManagerFactory, FencedJpaStock.Guard guard) {
            EntityManager entityManager = SharedEntityManagerCreator.createSharedEntityManager(entityManagerFactory);
            return new FencedJpaStock.Stock(entityManager, guard);
        }

        @Bean
        FencedJpaStock.Orders orders(FencedJpaStock.Stock stock) {
            return new FencedJpaStock.Orders(stock);
        }
    }

    @Test
    void holderWhoseLeaseRanOutIsRefusedAndItsJpaWriteRollsBack() {
        runner.run(context -> {
            assertThat(context.getBean(PlatformTransactionManager.class)).isInstanceOf(JpaTransactionManager.class);
            assertThat(pausedHolderThenNextHolder(context, false)).isInstanceOf(StaleFencingTokenException.class);
            assertThat(context.getBean(FencedJpaStock.Stock.class).quantity("SKU-1"))
                    .as("only the next holder's purchase of 3")
                    .isEqualTo(97);
        });
    }

    @Test
    void holderThatCatchesTheRefusalInsideItsTransactionStillDoesNotCommit() {
        runner.run(context -> {
            FencedJpaStock.Stock stock = context.getBean(FencedJpaStock.Stock.class);
            Throwable failure = pausedHolderThenNextHolder(context, true);
            assertThat(stock.caught()).as("the check refused the stale holder").isNotNull();
            assertThat(failure).as("the stale holder's commit fails").isInstanceOf(UnexpectedRollbackException.class);
            assertThat(stock.quantity("SKU-1"))
                    .as("only the next holder's purchase of 3")
                    .isEqualTo(97);
        });
    }

    /**
     * A holder takes the SKU's lock (300 ms lease) and pauses; after its lease ran out the next holder
     * buys 3; then the paused one resumes and buys 2. Returns the paused holder's failure, or null.
     */
    private static Throwable pausedHolderThenNextHolder(ApplicationContext context, boolean ignoreRefusal)
            throws Exception {
        FencedJpaStock.Orders orders = context.getBean(FencedJpaStock.Orders.class);
        context.getBean(FencedJpaStock.Stock.class).restock("SKU-1", 100);
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        CompletableFuture<Integer> stale = CompletableFuture.supplyAsync(() -> {
            try {
                return orders.buy("SKU-1", 2, ignoreRefusal, paused, resume);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();
        // Waits for the paused holder's lease to end, then buys.
        assertThat(orders.buy("SKU-1", 3, false, new CountDownLatch(1), new CountDownLatch(0)))
                .isEqualTo(97);
        resume.countDown();
        try {
            stale.get(60, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
