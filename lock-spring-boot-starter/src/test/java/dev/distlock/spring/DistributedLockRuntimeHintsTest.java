package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** The hints a native image needs, checked with Spring's RuntimeHintsPredicates. */
class DistributedLockRuntimeHintsTest {

    private final RuntimeHints hints = new RuntimeHints();

    DistributedLockRuntimeHintsTest() {
        // Through aot.factories, as Spring's AOT processing finds it.
        SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                .load(org.springframework.aot.hint.RuntimeHintsRegistrar.class)
                .forEach(registrar -> registrar.registerHints(hints, getClass().getClassLoader()));
    }

    @Test
    void everyLuaScriptAndSqlFileOfTheBackendsIsAResourceHint() throws IOException {
        List<String> resources = new ArrayList<>();
        PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver();
        for (String location : List.of("classpath*:dev/distlock/**/*.lua", "classpath*:dev/distlock/**/*.sql")) {
            for (Resource resource : resolver.getResources(location)) {
                String url = resource.getURL().toString();
                int inJar = url.lastIndexOf("!/");
                resources.add(
                        inJar >= 0 ? url.substring(inJar + 2) : url.substring(url.lastIndexOf("/dev/distlock/") + 1));
            }
        }
        assertThat(resources)
                .as("resources of lock-redis and lock-jdbc")
                .contains("dev/distlock/redis/acquire.lua", "dev/distlock/jdbc/schema-postgresql.sql");
        assertThat(resources)
                .allSatisfy(
                        resource -> assertThat(RuntimeHintsPredicates.resource().forResource(resource))
                                .as(resource)
                                .accepts(hints));
    }

    @Test
    void theFailureAnalyzerCanBeCreatedByReflection() {
        assertThat(RuntimeHintsPredicates.reflection()
                        .onType(LockStartupFailureAnalyzer.class)
                        .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
                .accepts(hints);
    }

    @Test
    void theRedisClientCustomizersCanBeProxied() {
        String present = DistributedLockRuntimeHints.PROXIED_CUSTOMIZERS.stream()
                .filter(name -> org.springframework.util.ClassUtils.isPresent(name, null))
                .findFirst()
                .orElseThrow();
        assertThat(RuntimeHintsPredicates.proxies().forInterfaces(TypeReference.of(present)))
                .accepts(hints);
    }

    /** A bean with a locked method whose key names a parameter. */
    public static class Orders {
        @DistributedLock(name = "order", key = "#id")
        public void ship(String id) {}

        @DistributedSemaphore(name = "exports", permits = 2, key = "#region")
        public void export(String region) {}
    }

    @Test
    void lockedMethodsOfBeansCanBeInvokedByReflection() throws Exception {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("orders", new RootBeanDefinition(Orders.class));
        BeanRegistrationAotProcessor processor =
                SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                        .load(BeanRegistrationAotProcessor.class)
                        .stream()
                        .filter(candidate -> candidate.getClass().getName().startsWith("dev.distlock."))
                        .findFirst()
                        .orElseThrow();
        BeanRegistrationAotContribution contribution =
                processor.processAheadOfTime(RegisteredBean.of(beanFactory, "orders"));
        assertThat(contribution).isNotNull();
        TestGenerationContext generationContext = new TestGenerationContext();
        contribution.applyTo(generationContext, null);
        assertThat(RuntimeHintsPredicates.reflection().onMethod(Orders.class.getMethod("ship", String.class)))
                .accepts(generationContext.getRuntimeHints());
        assertThat(RuntimeHintsPredicates.reflection().onMethod(Orders.class.getMethod("export", String.class)))
                .as("semaphore methods too")
                .accepts(generationContext.getRuntimeHints());
    }
}
