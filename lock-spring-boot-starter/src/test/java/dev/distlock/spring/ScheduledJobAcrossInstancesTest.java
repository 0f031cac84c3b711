package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Three application contexts ("instances") over one lock store run the same {@code @Scheduled}
 * job. With a minimum hold as long as the period, the job runs once per period across all three;
 * without it, the instances' runs pile up (the control shows the check sees that).
 */
class ScheduledJobAcrossInstancesTest {

    private static final long PERIOD_MILLIS = 300;
    private static final Duration RUN_FOR = Duration.ofSeconds(3);

    /** Start times (nanoTime) of every run, by every instance. */
    static final List<Long> RUNS = new CopyOnWriteArrayList<>();

    static final MemoryLockStore SHARED = new MemoryLockStore();

    public static class HeldAtLeastJob {
        @Scheduled(fixedRate = PERIOD_MILLIS)
        @DistributedLock(name = "report", holdAtLeast = "280ms")
        public void run() {
            RUNS.add(System.nanoTime());
        }
    }

    public static class PlainJob {
        @Scheduled(fixedRate = PERIOD_MILLIS)
        @DistributedLock(name = "report")
        public void run() {
            RUNS.add(System.nanoTime());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Instance {
        @Bean
        MemoryLockRegistry lockRegistry() {
            return MemoryLockRegistry.builder().store(SHARED).build();
        }
    }

    private ApplicationContextRunner instance(Class<?> job) {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(AopAutoConfiguration.class, DistributedLockAutoConfiguration.class))
                .withPropertyValues("distributed-lock.backend=memory")
                .withUserConfiguration(Instance.class)
                .withBean(job);
    }

    private List<Long> gapsMillis(Class<?> job) {
        RUNS.clear();
        ApplicationContextRunner runner = instance(job);
        runner.run(first -> runner.run(second -> runner.run(third -> {
            assertThat(first).hasNotFailed();
            assertThat(second).hasNotFailed();
            assertThat(third).hasNotFailed();
            Thread.sleep(RUN_FOR.toMillis());
        })));
        List<Long> starts = new ArrayList<>(RUNS);
        Collections.sort(starts);
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < starts.size(); i++) {
            gaps.add((starts.get(i) - starts.get(i - 1)) / 1_000_000);
        }
        return gaps;
    }

    @Test
    void jobWithAMinimumHoldRunsOncePerPeriodAcrossThreeInstances() {
        List<Long> gaps = gapsMillis(HeldAtLeastJob.class);
        assertThat(gaps).as("the job ran repeatedly").hasSizeGreaterThan(3);
        assertThat(gaps)
                .as("no run starts within the minimum hold of the previous one, whichever instance ran it")
                .allSatisfy(gap -> assertThat(gap).isGreaterThanOrEqualTo(270));
    }

    @Test
    void withoutAMinimumHoldTheInstancesRunTheJobWithinOnePeriod() {
        List<Long> gaps = gapsMillis(PlainJob.class);
        assertThat(gaps)
                .as("control: runs of different instances pile up")
                .anySatisfy(gap -> assertThat(gap).isLessThan(270));
    }
}
