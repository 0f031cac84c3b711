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
 * How far one {@code @DistributedLock} call travels through distlock before it reaches the backend: the distlock
 * classes on the stack when the backend is asked to take the key, and the calls from the handle's release to the
 * backend's release. A reader follows an acquisition through at most {@value #MAX_ACQUIRE_CLASSES} classes and a
 * release through at most {@value #MAX_RELEASE_HOPS} calls.
 */
class AcquirePathTest {

    static final int MAX_ACQUIRE_CLASSES = 12;
    static final int MAX_RELEASE_HOPS = 5;

    @Test
    void aLockedMethodReachesTheMemoryBackendThroughFewClasses() throws Exception {
        StackRecorder recorder = new StackRecorder();
        LockRegistry registry = new RecordingRegistry(recordingMemoryBackend(recorder));
        try (ConfigurableApplicationContext context = start(registry)) {
            LockedService service = context.getBean(LockedService.class);
            service.run("42", recorder::methodBodyReached);
        }
        List<String> acquire = recorder.acquire();
        List<String> release = recorder.releaseHops();
        System.out.printf(
                "memory backend: acquire meets %d classes %s; release takes %d hops %s%n",
                acquire.size(), acquire, release.size(), release);
        assertThat(acquire)
                .as("distlock classes on the stack at the take")
                .hasSizeLessThanOrEqualTo(MAX_ACQUIRE_CLASSES);
        assertThat(release)
                .as("calls from the handle's release to the backend's")
                .hasSizeLessThanOrEqualTo(MAX_RELEASE_HOPS);
    }

    @Test
    void aLockedMethodReachesTheRedisScriptThroughFewClasses() throws Exception {
        StackRecorder recorder = new StackRecorder();
        try (RedisServer redis = new RedisServer()) {
            LettuceConnectionFactory factory = redis.factory();
            RedisClient client = (RedisClient) factory.getNativeClient();
            client.addListener(new CommandListener() {
                @Override
                public void commandStarted(CommandStartedEvent event) {
                    String command = event.getCommand().getType().toString();
                    if (command.startsWith("EVAL") || command.startsWith("FCALL")) {
                        recorder.backendCalled(recorder.bodyReached() ? "release" : "tryAcquire");
                    }
                }
            });
            try (ConfigurableApplicationContext context = start("redis", factory)) {
                context.getBean(LockedService.class).run("42", recorder::methodBodyReached);
            } finally {
                factory.destroy();
            }
        }
        List<String> acquire = recorder.acquire();
        List<String> release = recorder.releaseHops();
        System.out.printf(
                "redis backend: acquire meets %d classes %s; release takes %d hops %s, then %s to the script call%n",
                acquire.size(), acquire, release.size(), release, recorder.releaseToClient());
        assertThat(acquire)
                .as("distlock classes on the stack at the script call")
                .hasSizeLessThanOrEqualTo(MAX_ACQUIRE_CLASSES);
        assertThat(release)
                .as("calls from the handle's release to the backend's")
                .hasSizeLessThanOrEqualTo(MAX_RELEASE_HOPS);
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
