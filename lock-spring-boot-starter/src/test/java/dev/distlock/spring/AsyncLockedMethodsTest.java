package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.spring.DistributedLock.OnFailure;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** Locked methods that return their work: the lock is held until that work is done. */
class AsyncLockedMethodsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(AopAutoConfiguration.class, DistributedLockAutoConfiguration.class))
            .withPropertyValues("distributed-lock.backend=memory")
            .withUserConfiguration(Beans.class);

    public static class Jobs {

        @DistributedLock(name = "job", key = "#id")
        public CompletableFuture<String> future(String id, CompletableFuture<String> work) {
            return work;
        }

        @DistributedLock(name = "job", key = "#id", onFailure = OnFailure.SKIP)
        public CompletableFuture<String> futureOrSkip(String id) {
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(name = "job", key = "#id", waitTime = "100ms")
        public CompletableFuture<String> futureOrThrow(String id) {
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(name = "job", key = "#id")
        public Mono<String> mono(String id, Mono<String> work) {
            return work;
        }

        @DistributedLock(name = "job", key = "#id")
        public Mono<Long> monoToken(String id) {
            return ReactiveLockContext.currentToken().map(token -> token.value());
        }

        @DistributedLock(name = "job", key = "#id", onFailure = OnFailure.SKIP)
        public Mono<String> monoOrSkip(String id) {
            return Mono.just("ran");
        }

        @DistributedLock(name = "job", key = "#id")
        public Flux<String> flux(String id, Flux<String> work) {
            return work;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        Jobs jobs() {
            return new Jobs();
        }

        @Bean
        MemoryLockRegistry lockRegistry() {
            return new MemoryLockRegistry();
        }
    }

    /** Whether another owner (a handle-owned attempt) could take the key right now. */
    private static boolean free(LockRegistry registry, String key) throws Exception {
        Optional<LockHandle> probe =
                registry.obtain(key).acquireAsync(Duration.ZERO).get(5, TimeUnit.SECONDS);
        probe.ifPresent(LockHandle::close);
        return probe.isPresent();
    }

    /**
     * Waits until the registry lists a hold of {@code key}, then checks that nobody else can take
     * it. Probing with an acquisition while waiting could take the key before the method's own
     * zero-wait acquisition and make it fail; reading the holds cannot.
     */
    private static void awaitHeld(LockRegistry registry, String key) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!listed(registry, key) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(listed(registry, key)).as("%s is listed as held", key).isTrue();
        assertThat(free(registry, key)).as("%s is held", key).isFalse();
    }

    private static boolean listed(LockRegistry registry, String key) {
        return registry.holds().stream().anyMatch(hold -> hold.key().equals(key) && hold.valid());
    }

    @Test
    void completableFutureMethodHoldsTheKeyUntilItsWorkCompletes() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            LockRegistry registry = context.getBean(LockRegistry.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result = jobs.future("a", work);
            awaitHeld(registry, "job:a");
            assertThat(jobs.futureOrSkip("a").get(5, TimeUnit.SECONDS))
                    .as("a second caller is skipped")
                    .isNull();
            assertThat(result).isNotDone();
            work.complete("done");
            assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
            assertThat(free(registry, "job:a")).as("released on completion").isTrue();
            assertThat(jobs.futureOrSkip("a").get(5, TimeUnit.SECONDS)).isEqualTo("ran");
        });
    }

    @Test
    void completableFutureMethodReleasesOnErrorAndOnCancellation() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            LockRegistry registry = context.getBean(LockRegistry.class);
            CompletableFuture<String> failing = new CompletableFuture<>();
            CompletableFuture<String> failed = jobs.future("b", failing);
            awaitHeld(registry, "job:b");
            assertThatThrownBy(() -> jobs.futureOrThrow("b").get(5, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LockNotAcquiredException.class);
            failing.completeExceptionally(new IllegalStateException("boom"));
            assertThatThrownBy(() -> failed.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
            assertThat(free(registry, "job:b")).as("released on error").isTrue();

            CompletableFuture<String> endless = new CompletableFuture<>();
            CompletableFuture<String> cancelled = jobs.future("c", endless);
            awaitHeld(registry, "job:c");
            cancelled.cancel(true);
            assertThat(endless).as("the cancellation reaches the method's work").isCancelled();
            assertThat(free(registry, "job:c")).as("released on cancellation").isTrue();
        });
    }

    @Test
    void monoMethodTakesTheLockOnSubscriptionAndHoldsItUntilTheMonoEnds() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            LockRegistry registry = context.getBean(LockRegistry.class);
            Sinks.One<String> sink = Sinks.one();
            Mono<String> mono = jobs.mono("m", sink.asMono());
            assertThat(free(registry, "job:m"))
                    .as("nothing is taken before subscription")
                    .isTrue();
            CompletableFuture<String> result = mono.toFuture();
            awaitHeld(registry, "job:m");
            assertThat(jobs.monoOrSkip("m").blockOptional(Duration.ofSeconds(5)))
                    .as("skipped while held")
                    .isEmpty();
            sink.tryEmitValue("done");
            assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
            assertThat(free(registry, "job:m")).isTrue();
            assertThat(jobs.monoToken("m").block(Duration.ofSeconds(5)))
                    .as("the token is in the Reactor context")
                    .isPositive();
        });
    }

    @Test
    void monoAndFluxMethodsReleaseOnErrorAndOnCancellation() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            LockRegistry registry = context.getBean(LockRegistry.class);
            Disposable cancelled = jobs.mono("x", Mono.never()).subscribe();
            awaitHeld(registry, "job:x");
            cancelled.dispose();
            awaitFree(registry, "job:x");

            assertThatThrownBy(() -> jobs.mono("y", Mono.error(new IllegalStateException("boom")))
                            .block(Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(free(registry, "job:y")).isTrue();

            Sinks.Many<String> items = Sinks.many().unicast().onBackpressureBuffer();
            CompletableFuture<java.util.List<String>> all =
                    jobs.flux("f", items.asFlux()).collectList().toFuture();
            awaitHeld(registry, "job:f");
            items.tryEmitNext("1");
            items.tryEmitNext("2");
            assertThat(free(registry, "job:f"))
                    .as("held until the flux completes")
                    .isFalse();
            items.tryEmitComplete();
            assertThat(all.get(5, TimeUnit.SECONDS)).containsExactly("1", "2");
            assertThat(free(registry, "job:f")).isTrue();

            Disposable endless = jobs.flux("g", Flux.never()).subscribe();
            awaitHeld(registry, "job:g");
            endless.dispose();
            awaitFree(registry, "job:g");
        });
    }

    private static void awaitFree(LockRegistry registry, String key) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!free(registry, key) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(free(registry, key)).as("%s is free", key).isTrue();
    }

    public static class FutureJob {
        @DistributedLock
        public Future<String> run() {
            return CompletableFuture.completedFuture("x");
        }
    }

    public static class PublisherJob {
        @DistributedLock
        public Publisher<String> run() {
            return Mono.just("x");
        }
    }

    @Test
    void methodsReturningFutureOrAPlainPublisherFailStartUp() {
        runner.withBean(FutureJob.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("FutureJob.run()")
                        .hasMessageContaining("java.util.concurrent.Future")
                        .hasMessageContaining("CompletableFuture"));
        runner.withBean(PublisherJob.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("PublisherJob.run()")
                        .hasMessageContaining("Mono"));
    }
}
