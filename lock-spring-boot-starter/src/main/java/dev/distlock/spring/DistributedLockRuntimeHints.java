package dev.distlock.spring;

import java.util.List;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * What a native image needs beyond what Spring finds, namely the backends' scripts, the failure analyzer and the
 * client customizers that are JDK proxies.
 */
class DistributedLockRuntimeHints implements RuntimeHintsRegistrar {

    /** Class path resources the backend and fencing modules read at run time. */
    static final List<String> RESOURCE_PATTERNS = List.of(
            "dev/distlock/redis/*.lua",
            "dev/distlock/jdbc/*.sql",
            "dev/distlock/fencing/jdbc/*.sql",
            "dev/distlock/fencing/redis/*.lua");

    /** The Spring Boot interfaces implemented as JDK proxies (Boot 4.x and 3.5 names). */
    static final List<String> PROXIED_CUSTOMIZERS = List.of(
            "org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer",
            "org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer",
            "org.springframework.boot.autoconfigure.data.redis.LettuceClientOptionsBuilderCustomizer",
            "org.springframework.boot.autoconfigure.data.redis.ClientResourcesBuilderCustomizer",
            // The HTTP clients' Distlock-Fence header customizers (fencing.http.CustomizerFactoryBean).
            "org.springframework.boot.restclient.RestClientCustomizer",
            "org.springframework.boot.restclient.RestTemplateCustomizer",
            "org.springframework.boot.webclient.WebClientCustomizer",
            "org.springframework.boot.web.client.RestClientCustomizer",
            "org.springframework.boot.web.client.RestTemplateCustomizer",
            "org.springframework.boot.web.reactive.function.client.WebClientCustomizer");

    /** Package-private in the backend package, so named here. */
    static final String ETCD_NETTY_FAILURE_ANALYZER = "dev.distlock.spring.backend.EtcdNettyFailureAnalyzer";

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        RESOURCE_PATTERNS.forEach(pattern -> hints.resources().registerPattern(pattern));
        hints.reflection()
                .registerType(LockStartupFailureAnalyzer.class, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)
                .registerType(
                        TypeReference.of(ETCD_NETTY_FAILURE_ANALYZER), MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)
                .registerType(DistributedLock.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        for (String customizer : PROXIED_CUSTOMIZERS) {
            if (ClassUtils.isPresent(customizer, classLoader)) {
                hints.proxies().registerJdkProxy(TypeReference.of(customizer));
            }
        }
    }
}
