package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;

/**
 * Under Spring AOT the backend is chosen when the application is built: the generated code keeps
 * it, and a different {@code distributed-lock.backend} at run time fails start-up.
 */
@CompileWithForkedClassLoader
class AheadOfTimeBackendTest {

    @Test
    void theBackendChosenAtBuildTimeRunsWhenTheRunTimeAgrees() {
        runAheadOfTimeBuilt("memory", "memory", context -> {
            context.refresh();
            assertThat(context.getBean(LockRegistry.class)).isInstanceOf(MemoryLockRegistry.class);
            context.close();
        });
    }

    @Test
    void aDifferentBackendAtRunTimeFailsStartUpSayingToRebuild() {
        runAheadOfTimeBuilt("memory", "jdbc", context -> {
            Throwable failure = catchThrowable(context::refresh);
            assertThat(StartupFailures.analysis(failure))
                    .contains("built ahead of time (Spring AOT) with the memory lock backend")
                    .contains("distributed-lock.backend=jdbc")
                    .contains("Action: Build the application again");
        });
    }

    interface RunTime {
        void start(GenericApplicationContext context);
    }

    /** Processes the starter ahead of time with one backend, then starts the generated code with another. */
    private static void runAheadOfTimeBuilt(String buildTimeBackend, String runTimeBackend, RunTime runTime) {
        GenericApplicationContext buildTime = new GenericApplicationContext();
        TestPropertyValues.of("distributed-lock.backend=" + buildTimeBackend).applyTo(buildTime);
        AnnotationConfigUtils.registerAnnotationConfigProcessors(buildTime);
        buildTime.registerBean(DistributedLockAutoConfiguration.class);
        TestGenerationContext generated = new TestGenerationContext();
        ClassName initializer = new ApplicationContextAotGenerator().processAheadOfTime(buildTime, generated);
        generated.writeGeneratedContent();
        TestCompiler.forSystem().with(generated).compile(compiled -> {
            GenericApplicationContext context = new GenericApplicationContext();
            TestPropertyValues.of("distributed-lock.backend=" + runTimeBackend).applyTo(context);
            @SuppressWarnings("unchecked")
            ApplicationContextInitializer<GenericApplicationContext> generatedInitializer =
                    compiled.getInstance(ApplicationContextInitializer.class, initializer.reflectionName());
            generatedInitializer.initialize(context);
            runTime.start(context);
        });
    }
}
