package dev.distlock.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import dev.distlock.spring.actuate.DistributedLocksEndpoint.KeyHolder;
import dev.distlock.spring.actuate.DistributedLocksEndpoint.Release;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The endpoint against a real server: who holds a key when another instance (another registry)
 * holds it, and force-release of that key, after which the evicted holder's fenced write is refused.
 * Each server backend's test supplies the application's configuration and the other instance.
 */
abstract class HolderEndpointContract {

    static final String OTHER_APPLICATION = "billing";

    /** The application's context, configured for the backend. */
    abstract ApplicationContextRunner application(ApplicationContextRunner runner);

    /** A registry of another instance on the same server, recording {@link #OTHER_APPLICATION}. */
    abstract LockRegistry otherInstance();

    private ApplicationContextRunner runner() {
        return application(new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DistributedLockAutoConfiguration.class, DistributedLockActuatorAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=distributedlocks"));
    }

    @Test
    void readsTheHolderOfAKeyHeldByAnotherInstance() throws Exception {
        ExecutorService otherThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "stock-worker-7"));
        try (LockRegistry other = otherInstance()) {
            LockHandle held = otherThread
                    .submit(() -> other.obtain("stock:sku-9").acquire())
                    .get(30, TimeUnit.SECONDS);
            runner().run(context -> {
                DistributedLocksEndpoint endpoint = context.getBean(DistributedLocksEndpoint.class);
                KeyHolder holder = endpoint.holder(new String[] {"stock:sku-9"})
                        .registries()
                        .get("lockRegistry");
                assertThat(holder.error()).isNull();
                assertThat(holder.held()).isTrue();
                assertThat(holder.holder())
                        .startsWith(OTHER_APPLICATION + "@")
                        .contains(" pid " + ProcessHandle.current().pid())
                        .endsWith("thread stock-worker-7");
                assertThat(holder.token()).isEqualTo(held.token().value());
                assertThat(holder.thisInstance()).isFalse();

                KeyHolder free = endpoint.holder(new String[] {"stock:sku-10"})
                        .registries()
                        .get("lockRegistry");
                assertThat(free.held()).isFalse();
                assertThat(free.error()).isNull();
            });
            otherThread.submit(held::close).get(30, TimeUnit.SECONDS);
        } finally {
            otherThread.shutdownNow();
        }
    }

    @Test
    void forceReleaseEvictsTheOtherInstanceAndItsLateFencedWriteIsRefused() throws Exception {
        FencedResource resource = new FencedResource();
        try (LockRegistry other = otherInstance()) {
            LockHandle stuck = other.obtain("report:daily").acquire();
            assertThat(resource.write(stuck.token())).isTrue();
            runner().run(context -> {
                DistributedLocksEndpoint endpoint = context.getBean(DistributedLocksEndpoint.class);
                LockRegistry registry = context.getBean(LockRegistry.class);
                assertThat(registry.obtain("report:daily").tryAcquire(Duration.ZERO))
                        .isEmpty();

                Release release = endpoint.forceRelease(new String[] {"report:daily"})
                        .registries()
                        .get("lockRegistry");
                assertThat(release.error()).isNull();
                assertThat(release.released()).isTrue();
                assertThat(release.evictedHolder()).startsWith(OTHER_APPLICATION + "@");
                assertThat(release.evictedToken()).isEqualTo(stuck.token().value());

                try (LockHandle next = registry.obtain("report:daily")
                        .tryAcquire(Duration.ofSeconds(10))
                        .orElseThrow()) {
                    assertThat(next.token()).isGreaterThan(stuck.token());
                    assertThat(resource.write(next.token())).isTrue();
                    assertThat(resource.write(stuck.token()))
                            .as("the evicted holder's late write")
                            .isFalse();
                }
            });
            stuck.close();
        }
    }
}
