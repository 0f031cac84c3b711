package dev.distlock.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.memory.MemoryLockStore;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.spring.DistributedLock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * How far one {@code @DistributedLock} call travels through distlock before it reaches the backend, on the memory
 * backend and on Redis: the distlock classes on the stack when the backend is asked to take the key (at most {@value
 * #MAX_ACQUIRE_CLASSES}), every distlock class whose code ran until then (held to today's count), and the calls from
 * the handle's release to the backend's release (at most {@value #MAX_RELEASE_HOPS}).
 */
class AcquirePathTest {

    static final int MAX_ACQUIRE_CLASSES = 12;
    static final int MAX_RELEASE_HOPS = 5;

    /**
     * Every class whose code runs until the take, records and helpers included: today's counts, so that the path
     * does not grow unnoticed. Lower them as the path gets shorter.
     */
    static final java.util.Map<String, Integer> MOST_CLASSES_MET_UNTIL_TAKE =
            java.util.Map.of("memory", 25, "redis", 35);

    @Test
    void aLockedMethodReachesTheMemoryBackendThroughFewClasses() throws Exception {
        ClassesMet.install();
        StackRecorder recorder = new StackRecorder();
        LockRegistry registry = new RecordingRegistry(recordingMemoryBackend(recorder));
        Trip trip;
        try (ConfigurableApplicationContext context = start(registry)) {
            trip = Trip.of(context.getBean(LockedService.class), recorder);
        }
        trip.check("memory");
    }

    @Test
    void aLockedMethodReachesTheRedisScriptThroughFewClasses() throws Exception {
        ClassesMet.install();
        StackRecorder recorder = new StackRecorder();
        Trip trip;
        try (RedisServer redis = new RedisServer()) {
            LettuceConnectionFactory factory = redis.factory();
            ((RedisClient) factory.getNativeClient()).addListener(new CommandListener() {
                @Override
                public void commandStarted(CommandStartedEvent event) {
                    String command = event.getCommand().getType().toString();
                    if (command.startsWith("EVAL") || command.startsWith("FCALL")) {
                        recorder.backendCalled(recorder.bodyReached() ? "release" : "tryAcquire");
                    }
                }
            });
            try (ConfigurableApplicationContext context = start("redis", factory)) {
                trip = Trip.of(context.getBean(LockedService.class), recorder);
            } finally {
                factory.destroy();
            }
        }
        trip.check("redis");
        System.out.printf("redis backend: from the hold's release to the script call %s%n", recorder.releaseToClient());
    }

    /**
     * One locked call, after one that warmed the path up: the classes whose code ran on the caller's thread until the
     * method's body and after it, the classes on the stack when the server was asked, and the release's hops.
     */
    record Trip(
            List<String> metOnAcquire,
            List<String> metUntilTake,
            List<String> metOnRelease,
            List<String> stackAtTake,
            List<String> hops) {

        static Trip of(LockedService service, StackRecorder warmUp) {
            service.run("41", () -> {});
            StackRecorder recorder = warmUp;
            recorder.reset();
            List<List<String>> met = new java.util.ArrayList<>();
            ClassesMet.record();
            try {
                service.run("42", () -> {
                    met.add(ClassesMet.met());
                    ClassesMet.record();
                    recorder.methodBodyReached();
                });
                met.add(ClassesMet.met());
            } finally {
                ClassesMet.stop();
            }
            return new Trip(
                    met.get(0), recorder.metUntilTake(), met.get(1), recorder.acquire(), recorder.releaseHops());
        }

        void check(String backend) {
            System.out.printf(
                    "%s backend: acquire meets %d classes %s, %d until the take %s (%d on the stack at the take: %s);"
                            + " release meets %d %s, %d hops %s%n",
                    backend,
                    metOnAcquire.size(),
                    metOnAcquire,
                    metUntilTake.size(),
                    metUntilTake,
                    stackAtTake.size(),
                    stackAtTake,
                    metOnRelease.size(),
                    metOnRelease,
                    hops.size(),
                    hops);
            assertThat(stackAtTake)
                    .as("distlock classes on the stack when the backend is asked")
                    .hasSizeLessThanOrEqualTo(MAX_ACQUIRE_CLASSES);
            assertThat(metUntilTake)
                    .as("distlock classes whose code runs from the call until the backend is asked")
                    .hasSizeLessThanOrEqualTo(MOST_CLASSES_MET_UNTIL_TAKE.get(backend));
            assertThat(hops)
                    .as("calls from the handle's release to the backend's")
                    .hasSizeLessThanOrEqualTo(MAX_RELEASE_HOPS);
        }
    }

    private static ConfigurableApplicationContext start(LockRegistry registry) {
        return new SpringApplicationBuilder(LockedApplication.class)
                .web(WebApplicationType.NONE)
                .properties("distributed-lock.backend=memory", "spring.main.banner-mode=off")
                .initializers(context -> context.getBeanFactory().registerSingleton("lockRegistry", registry))
                .run();
    }

    /** The application on {@code backend}, configured by the starter from {@code connections}. */
    private static ConfigurableApplicationContext start(String backend, RedisConnectionFactory connections) {
        return new SpringApplicationBuilder(LockedApplication.class)
                .web(WebApplicationType.NONE)
                .properties("distributed-lock.backend=" + backend, "spring.main.banner-mode=off")
                .initializers(
                        context -> context.getBeanFactory().registerSingleton("redisConnectionFactory", connections))
                .run();
    }

    /** The memory backend behind a proxy that records the stack of every take and release. */
    @SuppressWarnings("unchecked")
    private static LockBackend<?> recordingMemoryBackend(StackRecorder recorder) throws ReflectiveOperationException {
        Constructor<?> constructor = Class.forName("dev.distlock.core.memory.MemoryLockBackend")
                .getDeclaredConstructor(MemoryLockStore.class);
        constructor.setAccessible(true);
        LockBackend<?> memory = (LockBackend<?>) constructor.newInstance(new MemoryLockStore());
        return (LockBackend<?>) Proxy.newProxyInstance(
                AcquirePathTest.class.getClassLoader(), new Class<?>[] {LockBackend.class}, (proxy, method, args) -> {
                    recorder.backendCalled(method.getName());
                    try {
                        return method.invoke(memory, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** A registry over any backend, as a backend module's registry class is. */
    static final class RecordingRegistry extends LockRegistrySupport {

        @SuppressWarnings({"rawtypes", "unchecked"})
        RecordingRegistry(LockBackend backend) {
            super(backend, RegistryOptions.defaults());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class LockedApplication {

        @Bean
        LockedService lockedService() {
            return new LockedService();
        }
    }

    static class LockedService {

        @DistributedLock(name = "path", key = "#id")
        public void run(String id, Runnable body) {
            body.run();
        }
    }
}
