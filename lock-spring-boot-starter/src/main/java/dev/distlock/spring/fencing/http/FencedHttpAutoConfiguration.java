package dev.distlock.spring.fencing.http;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.MemoryFenceStore;
import dev.distlock.fencing.http.FenceHeaderExchangeFilter;
import dev.distlock.fencing.http.FenceHeaderInterceptor;
import dev.distlock.fencing.http.FencedEndpointInterceptor;
import dev.distlock.fencing.http.FencedPath;
import dev.distlock.spring.ReactiveLockContext;
import dev.distlock.spring.fencing.FencingClaims;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * HTTP fencing. RestClient, RestTemplate and WebClient builders of Spring Boot send the {@code Distlock-Fence} header
 * under a hold, and Spring MVC applications check it on fenced endpoints. Selects no lock backend.
 */
@AutoConfiguration
@ConditionalOnClass(name = "org.springframework.http.client.ClientHttpRequestInterceptor")
@EnableConfigurationProperties(FencedHttpProperties.class)
public final class FencedHttpAutoConfiguration {

    private static final String CLIENT = FencedHttpProperties.PREFIX + ".client.enabled";
    private static final String SERVER = FencedHttpProperties.PREFIX + ".server.enabled";

    /** RestClient and RestTemplate. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = CLIENT, matchIfMissing = true)
    static class BlockingClients {

        @Bean
        @ConditionalOnMissingBean
        FenceHeaderInterceptor distlockFenceHeaderInterceptor(ObjectProvider<LockRegistry> registries) {
            return new FenceHeaderInterceptor(new FencingClaims(registries)::find);
        }

        @Bean
        @ConditionalOnClass(
                name = {
                    "org.springframework.boot.restclient.RestClientCustomizer",
                    "org.springframework.web.client.RestClient"
                })
        static CustomizerFactoryBean distlockFenceRestClientCustomizer(
                ObjectProvider<FenceHeaderInterceptor> interceptor, BeanFactory beans) {
            return restClient("org.springframework.boot.restclient.RestClientCustomizer", interceptor, beans);
        }

        @Bean
        @ConditionalOnClass(
                name = {
                    "org.springframework.boot.web.client.RestClientCustomizer",
                    "org.springframework.web.client.RestClient"
                })
        static CustomizerFactoryBean distlockFenceRestClientCustomizerBoot3(
                ObjectProvider<FenceHeaderInterceptor> interceptor, BeanFactory beans) {
            return restClient("org.springframework.boot.web.client.RestClientCustomizer", interceptor, beans);
        }

        @Bean
        @ConditionalOnClass(name = "org.springframework.boot.restclient.RestTemplateCustomizer")
        static CustomizerFactoryBean distlockFenceRestTemplateCustomizer(
                ObjectProvider<FenceHeaderInterceptor> interceptor, BeanFactory beans) {
            return restTemplate("org.springframework.boot.restclient.RestTemplateCustomizer", interceptor, beans);
        }

        @Bean
        @ConditionalOnClass(name = "org.springframework.boot.web.client.RestTemplateCustomizer")
        static CustomizerFactoryBean distlockFenceRestTemplateCustomizerBoot3(
                ObjectProvider<FenceHeaderInterceptor> interceptor, BeanFactory beans) {
            return restTemplate("org.springframework.boot.web.client.RestTemplateCustomizer", interceptor, beans);
        }

        // Looked up when a builder is customized, since a factory bean is created early and must not pull the
        // registries in then.
        private static CustomizerFactoryBean restClient(
                String type, ObjectProvider<FenceHeaderInterceptor> interceptor, BeanFactory beans) {
            return new CustomizerFactoryBean(
                    type,
                    builder -> ((org.springframework.web.client.RestClient.Builder) builder)
                            .requestInterceptor(interceptor.getObject()),
                    classLoader(beans));
        }

        private static CustomizerFactoryBean restTemplate(
                String type, ObjectProvider<FenceHeaderInterceptor> interceptor, BeanFactory beans) {
            return new CustomizerFactoryBean(
                    type,
                    template -> {
                        FenceHeaderInterceptor added = interceptor.getObject();
                        if (!((RestTemplate) template).getInterceptors().contains(added)) {
                            ((RestTemplate) template).getInterceptors().add(added);
                        }
                    },
                    classLoader(beans));
        }
    }

    /** WebClient. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = CLIENT, matchIfMissing = true)
    @ConditionalOnClass(name = "org.springframework.web.reactive.function.client.WebClient")
    static class ReactiveClients {

        @Bean
        @ConditionalOnMissingBean
        FenceHeaderExchangeFilter distlockFenceHeaderExchangeFilter(ObjectProvider<LockRegistry> registries) {
            FencingClaims claims = new FencingClaims(registries);
            return new FenceHeaderExchangeFilter(
                    context -> Optional.ofNullable(context.<LockHandle>getOrDefault(ReactiveLockContext.KEY, null))
                            .map(claims::of),
                    claims::find);
        }

        @Bean
        @ConditionalOnClass(name = "org.springframework.boot.webclient.WebClientCustomizer")
        static CustomizerFactoryBean distlockFenceWebClientCustomizer(
                ObjectProvider<FenceHeaderExchangeFilter> filter, BeanFactory beans) {
            return webClient("org.springframework.boot.webclient.WebClientCustomizer", filter, beans);
        }

        @Bean
        @ConditionalOnClass(name = "org.springframework.boot.web.reactive.function.client.WebClientCustomizer")
        static CustomizerFactoryBean distlockFenceWebClientCustomizerBoot3(
                ObjectProvider<FenceHeaderExchangeFilter> filter, BeanFactory beans) {
            return webClient(
                    "org.springframework.boot.web.reactive.function.client.WebClientCustomizer", filter, beans);
        }

        private static CustomizerFactoryBean webClient(
                String type, ObjectProvider<FenceHeaderExchangeFilter> filter, BeanFactory beans) {
            return new CustomizerFactoryBean(
                    type, builder -> ((WebClient.Builder) builder).filter(filter.getObject()), classLoader(beans));
        }
    }

    /** Fenced endpoints of Spring MVC. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = SERVER, matchIfMissing = true)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "org.springframework.web.servlet.config.annotation.WebMvcConfigurer")
    static class FencedEndpoints {

        private static final Logger log = LoggerFactory.getLogger(FencedEndpoints.class);

        @Bean
        @ConditionalOnMissingBean
        FencedEndpointInterceptor distlockFencedEndpointInterceptor(
                FencedHttpProperties properties, ObjectProvider<FenceStore> stores, BeanFactory beans) {
            FencedHttpProperties.Server server = properties.getServer();
            return new FencedEndpointInterceptor(
                    store(server.getStore(), stores, beans),
                    server.getPaths().stream()
                            .map(path -> new FencedPath(path.getPattern(), path.getResource()))
                            .toList(),
                    server.getWait());
        }

        @Bean
        WebMvcConfigurer distlockFencedEndpoints(ObjectProvider<FencedEndpointInterceptor> interceptor) {
            return new WebMvcConfigurer() {
                @Override
                public void addInterceptors(InterceptorRegistry registry) {
                    registry.addInterceptor(interceptor.getObject());
                }
            };
        }

        private static FenceStore store(String name, ObjectProvider<FenceStore> stores, BeanFactory beans) {
            if (name != null && !name.isBlank()) {
                return beans.getBean(name, FenceStore.class);
            }
            long count = stores.stream().count();
            if (count > 1) {
                throw new IllegalStateException("Fenced endpoints need one FenceStore and there are " + count
                        + " FenceStore beans; set " + FencedHttpProperties.PREFIX
                        + ".server.store to the name of the one that keeps the fences of this service's resources.");
            }
            FenceStore store = stores.getIfAvailable();
            if (store == null) {
                log.info(
                        "Fenced endpoints keep their fences in memory: right for one instance only. With several"
                                + " instances, declare a shared FenceStore bean (SQL or Redis) or set {}.server.store.",
                        FencedHttpProperties.PREFIX);
                return new MemoryFenceStore();
            }
            return store;
        }
    }

    private static ClassLoader classLoader(BeanFactory beans) {
        return beans instanceof org.springframework.beans.factory.config.ConfigurableBeanFactory configurable
                        && configurable.getBeanClassLoader() != null
                ? configurable.getBeanClassLoader()
                : FencedHttpAutoConfiguration.class.getClassLoader();
    }
}
