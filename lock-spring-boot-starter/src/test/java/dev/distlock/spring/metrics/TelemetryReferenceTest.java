package dev.distlock.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import dev.distlock.spring.DistributedSemaphore;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code docs/telemetry.md} names exactly the meters and tags the starter registers: its meter binder and
 * observations run against a {@link SimpleMeterRegistry} (observations through Micrometer's meter handler,
 * as Spring Boot installs it) while locks are taken, time out, lose their lease, fail on the backend and
 * hold semaphore permits; the registry's meters and tag keys are compared with the table's rows.
 */
class TelemetryReferenceTest {

    private static final Path REFERENCE = Path.of("..", "docs", "telemetry.md");
    private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| (\\w+) \\| ([^|]+) \\| ([^|]+) \\|");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    public static class Jobs {

        @DistributedLock(name = "report", key = "#day")
        public String render(String day) {
            return "report " + day;
        }

        @DistributedLock(name = "report", key = "#day", waitTime = "0s")
        public String renderNow(String day) {
            return "report " + day;
        }

        @DistributedSemaphore(name = "exports", permits = 2, waitTime = "1s")
        public String export() {
            return "exported";
        }
    }

    @Test
    void theReferenceNamesEveryMeterAndTagTheStarterRegistersAndNoOther() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        exerciseLocks(meters);
        exerciseAFailingBackend(meters);

        assertThat(documented()).isEqualTo(registered(meters));
    }

    @Test
    void theComparisonSeesATagTheReferenceLacks() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        meters.counter(LockMeters.LEASE_LOSSES, "backend", "memory", "lock.name", "a", "holder", "h1");

        assertThat(documented()).isNotEqualTo(registered(meters));
    }

    private static void exerciseLocks(SimpleMeterRegistry meters) {
        runner(meters)
                .withPropertyValues("distributed-lock.backend=memory", "distributed-lock.lease-time=300ms")
                .withBean(Jobs.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Jobs jobs = context.getBean(Jobs.class);
                    MemoryLockRegistry registry = context.getBean(MemoryLockRegistry.class);
                    assertThat(jobs.render("monday")).isEqualTo("report monday");
                    assertThat(jobs.export()).isEqualTo("exported");
                    try (LockHandle held = registry.obtain("report:tuesday").acquire()) {
                        CompletableFuture<Void> busy =
                                CompletableFuture.runAsync(() -> assertThatThrownBy(() -> jobs.renderNow("tuesday"))
                                        .isInstanceOf(LockNotAcquiredException.class));
                        busy.get(10, TimeUnit.SECONDS);
                    }
                    try (LockHandle handle = registry.obtain("report:wednesday").acquire()) {
                        CountDownLatch lost = new CountDownLatch(1);
                        handle.onLost(lost::countDown);
                        registry.store().expire("report:wednesday");
                        assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
                    }
                });
    }

    private static void exerciseAFailingBackend(SimpleMeterRegistry meters) {
        runner(meters)
                .withPropertyValues("distributed-lock.startup-check.mode=off")
                .withBean(LockRegistry.class, () -> new FailingLockRegistry("app:"))
                .run(context -> assertThatThrownBy(() -> context.getBean(LockRegistry.class)
                                .obtain("stock:sku-1")
                                .tryAcquire(Duration.ZERO))
                        .isInstanceOf(LockBackendException.class));
    }

    private static ApplicationContextRunner runner(SimpleMeterRegistry meters) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, () -> meters)
                .withBean(ObservationRegistry.class, () -> {
                    ObservationRegistry observations = ObservationRegistry.create();
                    observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
                    return observations;
                });
    }

    /** Meter name to tag keys, as registered. */
    private static Map<String, Set<String>> registered(MeterRegistry meters) {
        Map<String, Set<String>> registered = new TreeMap<>();
        for (Meter meter : meters.getMeters()) {
            Set<String> keys = registered.computeIfAbsent(meter.getId().getName(), name -> new TreeSet<>());
            meter.getId().getTags().stream().map(Tag::getKey).forEach(keys::add);
        }
        return registered;
    }

    /**
     * Meter name to tag keys, as the reference's table says: a meter row is one meter; an observation row is
     * Micrometer's timer of its name with its tags and long-task timer {@code <name>.active} without {@code error}.
     */
    private static Map<String, Set<String>> documented() {
        Map<String, Set<String>> documented = new TreeMap<>();
        for (String line : readReference()) {
            Matcher row = ROW.matcher(line);
            if (!row.find()) {
                continue;
            }
            String name = row.group(1);
            Set<String> tags = codes(row.group(4));
            switch (row.group(2)) {
                case "meter" -> documented.put(name, tags);
                case "observation" -> {
                    documented.put(name, tags);
                    documented.put(
                            name + ".active",
                            tags.stream()
                                    .filter(tag -> !tag.equals("error"))
                                    .collect(Collectors.toCollection(TreeSet::new)));
                }
                default -> {} // log events carry no tags
            }
        }
        assertThat(documented).as("meter rows in " + REFERENCE).isNotEmpty();
        return documented;
    }

    private static Set<String> codes(String cell) {
        Set<String> codes = new TreeSet<>();
        Matcher code = CODE.matcher(cell);
        while (code.find()) {
            codes.add(code.group(1));
        }
        return codes;
    }

    private static List<String> readReference() {
        try {
            return Files.readAllLines(REFERENCE);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read " + REFERENCE.toAbsolutePath(), e);
        }
    }
}
