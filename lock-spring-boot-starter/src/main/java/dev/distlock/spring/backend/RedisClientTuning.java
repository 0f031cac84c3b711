package dev.distlock.spring.backend;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * Tunes the Lettuce client that Spring Boot builds, so that an outage costs a lock call no more than its wait time
 * and locking resumes soon after Redis returns (see {@code docs/internals/starter.md}).
 */
final class RedisClientTuning implements ImportBeanDefinitionRegistrar {

    /** Where Spring Boot 4.x and 3.5 keep their Redis customizer interfaces. */
    private static final List<String> CUSTOMIZER_PACKAGES = List.of(
            "org.springframework.boot.data.redis.autoconfigure.", "org.springframework.boot.autoconfigure.data.redis.");

    static final Duration MIN_RECONNECT_DELAY = Duration.ofMillis(50);
    static final Duration MAX_RECONNECT_DELAY = Duration.ofMillis(500);

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        ClassLoader classLoader = RedisClientTuning.class.getClassLoader();
        for (String prefix : CUSTOMIZER_PACKAGES) {
            String options = prefix + "LettuceClientOptionsBuilderCustomizer";
            String resources = prefix + "ClientResourcesBuilderCustomizer";
            if (ClassUtils.isPresent(options, classLoader) && ClassUtils.isPresent(resources, classLoader)) {
                RedisClientTuning.<ClientOptions.Builder>register(
                        registry, "distributedLockLettuceClientOptions", options, RedisClientTuning::tuneOptions);
                RedisClientTuning.<ClientResources.Builder>register(
                        registry, "distributedLockLettuceClientResources", resources, RedisClientTuning::tuneResources);
                return;
            }
        }
    }

    static void tuneOptions(ClientOptions.Builder options) {
        options.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
    }

    static void tuneResources(ClientResources.Builder resources) {
        resources.reconnectDelay(Delay.exponential(MIN_RECONNECT_DELAY, MAX_RECONNECT_DELAY, 2, TimeUnit.MILLISECONDS));
    }

    /** A bean of the customizer interface {@code type}, whose one method hands its argument to {@code tuning}. */
    private static <B> void register(BeanDefinitionRegistry registry, String name, String type, Consumer<B> tuning) {
        Class<?> customizer = ClassUtils.resolveClassName(type, RedisClientTuning.class.getClassLoader());
        RootBeanDefinition definition = new RootBeanDefinition(customizer);
        definition.setInstanceSupplier(() -> Proxy.newProxyInstance(
                customizer.getClassLoader(), new Class<?>[] {customizer}, (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return switch (method.getName()) {
                            case "equals" -> proxy == args[0];
                            case "hashCode" -> System.identityHashCode(proxy);
                            default -> "distlock " + customizer.getSimpleName();
                        };
                    }
                    @SuppressWarnings("unchecked")
                    B builder = (B) args[0];
                    tuning.accept(builder);
                    return null;
                }));
        registry.registerBeanDefinition(name, definition);
    }
}
