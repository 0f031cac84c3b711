package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.spring.DistributedLock.OnFailure;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

class DistributedLockAspectTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(AopAutoConfiguration.class, DistributedLockAutoConfiguration.class))
            .withPropertyValues("distributed-lock.backend=memory", "test.wait=5s")
            .withUserConfiguration(Beans.class);

    /** Locked methods that run a body handed in by the test, so a test can look from inside. */
    public static class Orders {

        private final AtomicInteger runs = new AtomicInteger();

        /** How often a method body ran (a method, as the bean is a proxy). */
        public int runs() {
            return runs.get();
        }

        @DistributedLock(name = "order", key = "#id")
        public <T> T byId(String id, Supplier<T> body) {
            runs.incrementAndGet();
            return body.get();
        }

        @DistributedLock(name = "stock", key = "#item.sku + '/' + #item.warehouse")
        public <T> T byItem(Item item, Supplier<T> body) {
            return body.get();
        }

        @DistributedLock(name = "positional", key = "#p0")
        public <T> T byPosition(long id, Supplier<T> body) {
            return body.get();
        }

        @DistributedLock
        public <T> T wholeMethod(Supplier<T> body) {
            return body.get();
        }

        @DistributedLock(name = "order", key = "#id", waitTime = "${test.wait}")
        public <T> T byIdWaiting(String id, Supplier<T> body) {
            return body.get();
        }

        @DistributedLock(name = "order", key = "#id", onFailure = OnFailure.SKIP)
        public String skipping(String id) {
            runs.incrementAndGet();
            return "ran";
        }

        @DistributedLock(name = "order", key = "#id", onFailure = OnFailure.SKIP)
        public Optional<String> skippingOptional(String id) {
            runs.incrementAndGet();
            return Optional.of("ran");
        }

        @DistributedLock(name = "order", key = "#id", onFailure = OnFailure.SKIP)
        public void skippingVoid(String id) {
            runs.incrementAndGet();
        }

        @DistributedLock(name = "order", key = "#id")
        public int primitive(String id) {
            return LockContext.currentToken().value() > 0 ? 1 : 0;
        }

        @DistributedLock(name = "lease", key = "#id", leaseTime = "150ms")
        public boolean validAfter(String id, long sleepMillis) throws InterruptedException {
            Thread.sleep(sleepMillis);
            return LockContext.currentHandle().orElseThrow().isValid();
        }

        @DistributedLock(name = "order", key = "#id", registry = "secondRegistry")
        public <T> T onSecondRegistry(String id, Supplier<T> body) {
            return body.get();
        }
    }

    /** Property access on a record, as in {@code #item.sku}. */
    public record Item(String sku, int warehouse) {}

    /** The annotation sits on the interface only. */
    public interface Payments {

        @DistributedLock(name = "payment", key = "#paymentId")
        boolean pay(String paymentId);
    }

    public static class LockCheckingPayments implements Payments {

        private final LockRegistry registry;

        LockCheckingPayments(LockRegistry registry) {
            this.registry = registry;
        }

        @Override
        public boolean pay(String paymentId) {
            return registry.obtain("payment:" + paymentId).isHeldByCurrentThread();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        Orders orders() {
            return new Orders();
        }

        @Bean
        Payments payments(LockRegistry registry) {
            return new LockCheckingPayments(registry);
        }

        @Bean
        @Primary
        MemoryLockRegistry firstRegistry() {
            return new MemoryLockRegistry();
        }

        @Bean
        MemoryLockRegistry secondRegistry() {
            return new MemoryLockRegistry();
        }
    }

    private static LockRegistry primary(AssertableApplicationContext context) {
        return context.getBean(LockRegistry.class);
    }

    private static boolean held(AssertableApplicationContext context, String key) {
        return primary(context).obtain(key).isHeldByCurrentThread();
    }

    /** Holds {@code key} from another thread until the returned latch is counted down. */
    private static CountDownLatch holdElsewhere(LockRegistry registry, String key) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch acquired = new CountDownLatch(1);
        Thread thread = new Thread(() -> {
            try (LockHandle handle = registry.obtain(key).acquire()) {
                acquired.countDown();
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        thread.start();
        assertThat(acquired.await(5, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    @Test
    void keyIsNameColonSpelOverParameterNames() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.byId("42", () -> held(context, "order:42"))).isTrue();
            assertThat(held(context, "order:42")).isFalse();
        });
    }

    @Test
    void keyReadsPropertiesOfArgumentsAndPositionalParameters() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.byItem(new Item("ABC", 7), () -> held(context, "stock:ABC/7")))
                    .isTrue();
            assertThat(orders.byPosition(9L, () -> held(context, "positional:9")))
                    .isTrue();
        });
    }

    @Test
    void emptyKeyLocksTheMethodUnderClassAndMethodName() {
        runner.run(context -> assertThat(
                        context.getBean(Orders.class).wholeMethod(() -> held(context, "Orders.wholeMethod")))
                .isTrue());
    }

    @Test
    void nullKeyFailsNamingTheMethodAndExpression() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> orders.byId(null, () -> "never"))
                    .withMessageContaining("'#id'")
                    .withMessageContaining("Orders.byId()")
                    .withMessageContaining("evaluated to null");
            assertThat(orders.runs()).isEqualTo(0);
        });
    }

    @Test
    void annotationOnAnInterfaceMethodLocksWithClassAndInterfaceProxies() {
        runner.run(context -> {
            Payments payments = context.getBean(Payments.class);
            assertThat(AopUtils.isCglibProxy(payments)).isTrue();
            assertThat(payments.pay("p-1")).isTrue();
        });
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
                .withPropertyValues("distributed-lock.backend=memory", "test.wait=5s")
                .withUserConfiguration(Beans.class)
                .run(context -> {
                    Payments payments = context.getBean(Payments.class);
                    assertThat(AopUtils.isJdkDynamicProxy(payments)).isTrue();
                    assertThat(payments.pay("p-2")).isTrue();
                });
    }

    @Test
    void heldElsewhereThrowsLockNotAcquiredWithoutRunningTheMethod() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            CountDownLatch release = holdElsewhere(primary(context), "order:1");
            try {
                assertThatThrownBy(() -> orders.byId("1", () -> "ran"))
                        .isInstanceOf(LockNotAcquiredException.class)
                        .hasMessageContaining("order:1");
                assertThat(orders.runs()).isEqualTo(0);
            } finally {
                release.countDown();
            }
        });
    }

    @Test
    void skipReturnsNullEmptyOptionalOrNothingWithoutRunningTheMethod() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            CountDownLatch release = holdElsewhere(primary(context), "order:1");
            try {
                assertThat(orders.skipping("1")).isNull();
                assertThat(orders.skippingOptional("1")).isEmpty();
                orders.skippingVoid("1");
                assertThat(orders.runs()).isEqualTo(0);
            } finally {
                release.countDown();
            }
            assertThat(orders.skipping("2")).isEqualTo("ran");
            assertThat(orders.skippingOptional("2")).contains("ran");
            assertThat(orders.runs()).isEqualTo(2);
        });
    }

    @Test
    void waitTimePlaceholderIsResolvedAndWaitedFor() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            CountDownLatch release = holdElsewhere(primary(context), "order:5");
            CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS).execute(release::countDown);
            long start = System.nanoTime();
            assertThat(orders.byIdWaiting("5", () -> "ran")).isEqualTo("ran");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
        });
    }

    @Test
    void methodExceptionPropagatesAndTheLockIsReleased() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            IllegalStateException failure = new IllegalStateException("out of stock");
            assertThatThrownBy(() -> orders.byId("3", () -> {
                        throw failure;
                    }))
                    .isSameAs(failure);
            assertThat(LockContext.currentHandle()).isEmpty();
            CompletableFuture<Boolean> freeForOthers = CompletableFuture.supplyAsync(() -> {
                try {
                    Optional<LockHandle> handle =
                            primary(context).obtain("order:3").tryAcquire(Duration.ZERO);
                    handle.ifPresent(LockHandle::close);
                    return handle.isPresent();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(freeForOthers.get(5, TimeUnit.SECONDS)).isTrue();
        });
    }

    @Test
    void currentTokenIsTheInnermostLocksForNestedLocks() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            LockRegistry registry = primary(context);
            List<FencingToken> seen = orders.byId("outer", () -> {
                FencingToken outerBefore = LockContext.currentToken();
                List<FencingToken> inner = orders.byItem(
                        new Item("inner", 1),
                        () -> List.of(
                                LockContext.currentToken(),
                                registry.obtain("stock:inner/1").currentToken().orElseThrow()));
                assertThat(inner.get(0)).isEqualTo(inner.get(1));
                FencingToken reentrant = orders.byId("outer", LockContext::currentToken);
                FencingToken outerAfter = LockContext.currentToken();
                return List.of(
                        outerBefore,
                        outerAfter,
                        reentrant,
                        registry.obtain("order:outer").currentToken().orElseThrow());
            });
            assertThat(seen).containsOnly(seen.get(3));
            assertThatIllegalStateException()
                    .isThrownBy(LockContext::currentToken)
                    .withMessageContaining("outside a @DistributedLock method");
        });
    }

    @Test
    void innerLockHasItsOwnToken() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            LockRegistry registry = primary(context);
            orders.byId("a", () -> {
                FencingToken outer = LockContext.currentToken();
                assertThat(outer)
                        .isEqualTo(registry.obtain("order:a").currentToken().orElseThrow());
                orders.byId("b", () -> {
                    assertThat(LockContext.currentToken())
                            .isEqualTo(registry.obtain("order:b").currentToken().orElseThrow());
                    return null;
                });
                assertThat(LockContext.currentToken()).isEqualTo(outer);
                return null;
            });
        });
    }

    @Test
    void primitiveReturnWorksWithThrow() {
        runner.run(context ->
                assertThat(context.getBean(Orders.class).primitive("p")).isEqualTo(1));
    }

    @Test
    void fixedLeaseTimeEndsTheHoldWithoutRenewal() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.validAfter("short", 0)).isTrue();
            assertThat(orders.validAfter("long", 600)).isFalse();
        });
    }

    @Test
    void registryAttributePicksTheNamedRegistry() {
        runner.run(context -> {
            LockRegistry second = context.getBean("secondRegistry", LockRegistry.class);
            boolean[] heldIn = orders(context).onSecondRegistry("7", () -> new boolean[] {
                held(context, "order:7"), second.obtain("order:7").isHeldByCurrentThread()
            });
            assertThat(heldIn).containsExactly(false, true);
        });
    }

    private static Orders orders(AssertableApplicationContext context) {
        return context.getBean(Orders.class);
    }

    // --- start-up checks -------------------------------------------------------------------

    public static class InvalidSpel {
        @DistributedLock(name = "x", key = "#id +")
        public void run(String id) {}
    }

    public static class UnknownParameter {
        @DistributedLock(name = "x", key = "#skuu")
        public void run(String sku) {}
    }

    public static class SkipOnPrimitive {
        @DistributedLock(name = "x", onFailure = OnFailure.SKIP)
        public long run() {
            return 1;
        }
    }

    public static class UnresolvableWait {
        @DistributedLock(name = "x", waitTime = "${no.such.property}")
        public void run() {}
    }

    public static class NotADuration {
        @DistributedLock(name = "x", leaseTime = "soon")
        public void run() {}
    }

    public static class UnknownRegistry {
        @DistributedLock(name = "x", registry = "nope")
        public void run() {}
    }

    private String startupFailureWith(Class<?> bean) {
        String[] message = new String[1];
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
                .withPropertyValues("distributed-lock.backend=memory")
                .withBean(bean)
                .run(context -> message[0] = StartupFailures.analysis(context));
        return message[0];
    }

    @Test
    void invalidSpelKeyFailsStartUp() {
        assertThat(startupFailureWith(InvalidSpel.class))
                .contains("invalid SpEL key '#id +'")
                .contains("Action: Correct the @DistributedLock annotation on InvalidSpel.run()");
    }

    @Test
    void keyNamingAnUnknownParameterFailsStartUp() {
        assertThat(startupFailureWith(UnknownParameter.class))
                .contains("refers to #skuu")
                .contains("Parameters: sku");
    }

    @Test
    void skipOnAPrimitiveReturnTypeFailsStartUp() {
        assertThat(startupFailureWith(SkipOnPrimitive.class))
                .contains("onFailure = SKIP")
                .contains("returns long");
    }

    @Test
    void unresolvableOrInvalidDurationsFailStartUp() {
        assertThat(startupFailureWith(UnresolvableWait.class))
                .contains("waitTime")
                .contains("no.such.property");
        assertThat(startupFailureWith(NotADuration.class))
                .contains("leaseTime = \"soon\"")
                .contains("not a duration");
    }

    @Test
    void unknownRegistryNameFailsStartUp() {
        assertThat(startupFailureWith(UnknownRegistry.class)).contains("registry 'nope'");
    }
}
