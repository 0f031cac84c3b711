package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import kotlin.coroutines.Continuation;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A Kotlin suspend function under {@code @DistributedLock} without kotlinx-coroutines-reactor (this module's
 * test classpath has Kotlin's standard library only): start-up fails and names the artifact to add.
 */
class SuspendWithoutCoroutinesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(AopAutoConfiguration.class, DistributedLockAutoConfiguration.class))
            .withPropertyValues("distributed-lock.backend=memory");

    /** What the Kotlin compiler makes of {@code suspend fun work(id: String): String}. */
    public static class SuspendingJob {

        @DistributedLock(name = "job", key = "#id")
        public Object work(String id, Continuation<? super String> completion) {
            return "ran";
        }
    }

    @Test
    void suspendFunctionWithoutCoroutineSupportFailsStartUpNamingLockKotlin() {
        runner.withBean(SuspendingJob.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("SuspendingJob.work()")
                    .hasMessageContaining("suspend function")
                    .hasMessageContaining("dev.distlock:lock-kotlin")
                    .hasMessageContaining("kotlinx-coroutines-reactor");
        });
    }
}
