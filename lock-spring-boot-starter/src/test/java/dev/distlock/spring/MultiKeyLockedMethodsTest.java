package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.OverlapDetector;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import dev.distlock.spring.DistributedLock.Mode;
import dev.distlock.spring.DistributedLock.OnFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code @DistributedLock(keys = ...)}: several keys held all or nothing for the call, each with its token. */
class MultiKeyLockedMethodsTest {

    private final MemoryLockStore store = new MemoryLockStore();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(AopAutoConfiguration.class, DistributedLockAutoConfiguration.class))
                .withPropertyValues("distributed-lock.backend=memory")
                .withBean(
                        MemoryLockRegistry.class,
                        () -> MemoryLockRegistry.builder().store(store).build())
                .withUserConfiguration(Beans.class);
    }

    /** Transfers between accounts: each call holds both accounts' keys. */
    public static class Bank {

        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @DistributedLock(
                name = "account",
                keys = {"#from", "#to"},
                waitTime = "20s")
        public <T> T transfer(String from, String to, Supplier<T> body) {
            runs.incrementAndGet();
            return body.get();
        }

        /** The same work without the lock: the control run. */
        public <T> T transferUnlocked(String from, String to, Supplier<T> body) {
            return body.get();
        }

        @DistributedLock(name = "account", keys = "#ids")
        public <T> T audit(List<String> ids, Supplier<T> body) {
            runs.incrementAndGet();
            return body.get();
        }

        @DistributedLock(name = "account", keys = "#ids")
        public <T> T auditArray(String[] ids, Supplier<T> body) {
            return body.get();
        }

        @DistributedLock(name = "account", key = "#id")
        public <T> T one(String id, Supplier<T> body) {
            return body.get();
        }

        @DistributedLock(
                name = "account",
                keys = {"#from", "#to"},
                waitTime = "50ms",
                onFailure = OnFailure.SKIP)
        public String transferOrSkip(String from, String to) {
            runs.incrementAndGet();
            return "ran";
        }

        @DistributedLock(
                name = "account",
                keys = {"#from", "#to"},
                waitTime = "50ms")
        public String transferOrThrow(String from, String to) {
            runs.incrementAndGet();
            return "ran";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        Bank bank() {
            return new Bank();
        }
    }

    private static LockRegistry registry(AssertableApplicationContext context) {
        return context.getBean(LockRegistry.class);
    }

    private static boolean held(AssertableApplicationContext context, String key) {
        return registry(context).obtain(key).isHeldByCurrentThread();
    }

    @Test
    void transfersInOppositeDirectionsOnTwoInstancesNeitherDeadlockNorOverlap() {
        int passes = 8;
        Map<String, OverlapDetector> accounts = Map.of("a", new OverlapDetector(2), "b", new OverlapDetector(2));
        runTransfers(passes, accounts, false);
        for (OverlapDetector account : accounts.values()) {
            assertThat(account.completed()).isEqualTo(4 * 2 * passes);
            assertThat(account.count())
                    .as("lost updates mean two transfers overlapped")
                    .isEqualTo(account.completed());
            assertThat(account.maxActive()).isEqualTo(1);
        }
    }

    @Test
    void theSameTransfersWithoutTheLockOverlap() {
        // Control run: the workload above, through the method without the annotation.
        Map<String, OverlapDetector> accounts = Map.of("a", new OverlapDetector(5), "b", new OverlapDetector(5));
        runTransfers(5, accounts, true);
        assertThat(accounts.values()).anyMatch(OverlapDetector::overlapSeen);
    }

    /** Two application instances over one lock store, two threads each transferring a to b, two b to a. */
    private void runTransfers(int passes, Map<String, OverlapDetector> accounts, boolean unlocked) {
        runner().run(first -> runner().run(second -> {
            ExecutorService threads = Executors.newFixedThreadPool(8);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<?>> workers = new ArrayList<>();
                for (Bank bank : List.of(first.getBean(Bank.class), second.getBean(Bank.class))) {
                    for (List<String> direction :
                            List.of(List.of("a", "b"), List.of("b", "a"), List.of("a", "b"), List.of("b", "a"))) {
                        workers.add(threads.submit(() -> {
                            start.await();
                            for (int i = 0; i < passes; i++) {
                                Supplier<Object> body = () -> pass(accounts, direction);
                                if (unlocked) {
                                    bank.transferUnlocked(direction.get(0), direction.get(1), body);
                                } else {
                                    bank.transfer(direction.get(0), direction.get(1), body);
                                }
                            }
                            return null;
                        }));
                    }
                }
                start.countDown();
                for (Future<?> worker : workers) {
                    worker.get(60, TimeUnit.SECONDS);
                }
            } finally {
                threads.shutdownNow();
            }
        }));
    }

    private static Object pass(Map<String, OverlapDetector> accounts, List<String> direction) {
        for (String account : direction) {
            try {
                accounts.get(account).criticalSection();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return null;
    }

    @Test
    void everyKeyIsNameColonValueAndHeldForTheCallOnly() {
        runner().run(context -> {
            Bank bank = context.getBean(Bank.class);
            assertThat(bank.transfer("a", "b", () -> List.of(held(context, "account:a"), held(context, "account:b"))))
                    .containsExactly(true, true);
            assertThat(held(context, "account:a")).isFalse();
            assertThat(held(context, "account:b")).isFalse();
            assertThat(bank.audit(
                            List.of("c", "a", "c"), () -> held(context, "account:a") && held(context, "account:c")))
                    .isTrue();
            assertThat(bank.auditArray(
                            new String[] {"x", "y"},
                            () -> LockContext.currentTokens().keySet()))
                    .containsExactly("account:x", "account:y");
        });
    }

    @Test
    void theContextGivesATokenPerKeyAndNoSingleToken() {
        runner().run(context -> {
            Bank bank = context.getBean(Bank.class);
            LockRegistry registry = registry(context);
            bank.transfer("b", "a", () -> {
                FencingToken a = LockContext.currentToken("account:a");
                assertThat(a)
                        .isEqualTo(registry.obtain("account:a").currentToken().orElseThrow());
                assertThat(LockContext.currentTokens())
                        .containsOnlyKeys("account:a", "account:b")
                        .containsEntry("account:a", a);
                assertThat(LockContext.currentMultiHandle().orElseThrow().keys())
                        .as("taken in natural order")
                        .containsExactly("account:a", "account:b");
                assertThat(LockContext.currentHandle()).isEmpty();
                assertThat(LockContext.findCurrentToken()).isEmpty();
                assertThatIllegalStateException()
                        .isThrownBy(LockContext::currentToken)
                        .withMessageContaining("several keys")
                        .withMessageContaining("currentToken(key)");
                assertThatIllegalStateException()
                        .isThrownBy(() -> LockContext.currentToken("account:z"))
                        .withMessageContaining("account:z")
                        .withMessageContaining("account:a");
                FencingToken inner = bank.one("a", () -> {
                    assertThat(LockContext.currentTokens()).containsOnlyKeys("account:a");
                    return LockContext.currentToken();
                });
                assertThat(inner).as("the inner method joins the outer hold").isEqualTo(a);
                assertThat(LockContext.currentToken("account:b")).isNotNull();
                return null;
            });
            assertThat(LockContext.currentMultiHandle()).isEmpty();
            assertThatIllegalStateException().isThrownBy(LockContext::currentTokens);
        });
    }

    @Test
    void aKeyHeldElsewhereFailsTheCallNamingItAndLeavesTheOtherKeyFree() {
        runner().run(context -> {
            Bank bank = context.getBean(Bank.class);
            LockRegistry elsewhere = MemoryLockRegistry.builder().store(store).build();
            try (LockHandle b = elsewhere
                    .obtain("account:b")
                    .acquireAsync(Duration.ZERO)
                    .get(10, TimeUnit.SECONDS)
                    .orElseThrow()) {
                assertThatThrownBy(() -> bank.transferOrThrow("a", "b"))
                        .isInstanceOf(LockNotAcquiredException.class)
                        .hasMessageContaining("account:b")
                        .hasMessageContaining("Bank.transferOrThrow()");
                assertThat(bank.transferOrSkip("b", "a")).isNull();
                assertThat(bank.runs()).isZero();
                Optional<LockHandle> a = elsewhere.obtain("account:a").tryAcquire(Duration.ofSeconds(2));
                assertThat(a).as("the other key was released").isPresent();
                a.get().close();
            } finally {
                elsewhere.close();
            }
            assertThat(bank.transferOrThrow("a", "b")).isEqualTo("ran");
        });
    }

    @Test
    void nullOrEmptyKeysFailTheCallNamingTheExpression() {
        runner().run(context -> {
            Bank bank = context.getBean(Bank.class);
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> bank.transfer("a", null, () -> "never"))
                    .withMessageContaining("'#to'")
                    .withMessageContaining("null");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> bank.audit(List.of(), () -> "never"))
                    .withMessageContaining("'#ids'")
                    .withMessageContaining("empty");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> bank.audit(Arrays.asList("a", " "), () -> "never"))
                    .withMessageContaining("blank");
            assertThat(bank.runs()).isZero();
        });
    }

    // --- start-up checks -------------------------------------------------------------------

    public static class KeyAndKeys {
        @DistributedLock(
                name = "x",
                key = "#a",
                keys = {"#a", "#b"})
        public void run(String a, String b) {}
    }

    public static class KeysWithReadMode {
        @DistributedLock(
                name = "x",
                keys = {"#a", "#b"},
                mode = Mode.READ)
        public void run(String a, String b) {}
    }

    public static class KeysOnAFuture {
        @DistributedLock(
                name = "x",
                keys = {"#a", "#b"})
        public CompletableFuture<String> run(String a, String b) {
            return CompletableFuture.completedFuture(a);
        }
    }

    public static class BlankKeysElement {
        @DistributedLock(
                name = "x",
                keys = {"#a", " "})
        public void run(String a) {}
    }

    public static class KeysNamingAnUnknownParameter {
        @DistributedLock(
                name = "x",
                keys = {"#a", "#c"})
        public void run(String a, String b) {}
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
    void keyAndKeysTogetherFailStartUp() {
        assertThat(startupFailureWith(KeyAndKeys.class))
                .contains("sets both key")
                .contains("keys")
                .contains("Action: Correct the @DistributedLock annotation on KeyAndKeys.run()");
    }

    @Test
    void keysWithAReadWriteModeOrAnAsynchronousReturnFailStartUp() {
        assertThat(startupFailureWith(KeysWithReadMode.class))
                .contains("mode = READ")
                .contains("not supported with keys");
        assertThat(startupFailureWith(KeysOnAFuture.class))
                .contains("returns CompletableFuture")
                .contains("not supported with keys");
    }

    @Test
    void blankOrUnknownKeysExpressionsFailStartUp() {
        assertThat(startupFailureWith(BlankKeysElement.class)).contains("blank expression at position 2");
        assertThat(startupFailureWith(KeysNamingAnUnknownParameter.class))
                .contains("refers to #c")
                .contains("Parameters: a, b");
    }
}
