package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Registries whose clients share {@link ClientResources} hear each other's connection events; a
 * burst of them (every client reconnecting after a server restart) is acted on once per registry.
 */
class ClientEventsTest {

    private static final InetSocketAddress SERVER = new InetSocketAddress("127.0.0.1", 6379);
    private static final int OTHER_CLIENTS = 50;

    private final ClientResources resources = DefaultClientResources.create();
    private final LettuceConnectionFactory factory = new LettuceConnectionFactory(
            new RedisStandaloneConfiguration("127.0.0.1", 1), // never connected
            LettuceClientConfiguration.builder().clientResources(resources).build());
    private final AtomicInteger scriptLoads = new AtomicInteger();
    private final AtomicInteger wakeUps = new AtomicInteger();

    @AfterEach
    void tearDown() {
        factory.destroy();
        resources.shutdown(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void aBurstOfActivationsOnSharedResourcesLoadsTheScriptsAndWakesTheWaitersOnce() throws Exception {
        factory.afterPropertiesSet();
        factory.start();
        try (ClientEvents events = new ClientEvents(factory, scriptLoads::incrementAndGet)) {
            events.onAnyEvent(wakeUps::incrementAndGet);

            publishBurst();
            awaitAtLeastOne(scriptLoads::get);
            Thread.sleep(300); // anything still gathered would run by now
            // One run per burst; two or three if the event bus's thread was descheduled mid-burst.
            assertThat(scriptLoads.get())
                    .as("script loads after %s activations", OTHER_CLIENTS)
                    .isBetween(1, 3);
            assertThat(wakeUps.get())
                    .as("wake-ups after %s connection events", 2 * OTHER_CLIENTS)
                    .isBetween(1, 3);

            // A later burst is not swallowed by the first.
            int loadsBefore = scriptLoads.get();
            resources.eventBus().publish(new ConnectionActivatedEvent(local(0), SERVER));
            awaitAtLeastOne(() -> scriptLoads.get() - loadsBefore);
        }
    }

    private void publishBurst() {
        for (int i = 0; i < OTHER_CLIENTS; i++) {
            resources.eventBus().publish(new ConnectionDeactivatedEvent(local(i), SERVER));
            resources.eventBus().publish(new ConnectionActivatedEvent(local(i), SERVER));
        }
    }

    private static InetSocketAddress local(int client) {
        return new InetSocketAddress("127.0.0.1", 40000 + client);
    }

    private static void awaitAtLeastOne(IntSupplier count) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (count.getAsInt() < 1) {
            assertThat(System.nanoTime())
                    .as("the event was acted on within 5 s")
                    .isLessThan(end);
            Thread.sleep(5);
        }
    }
}
