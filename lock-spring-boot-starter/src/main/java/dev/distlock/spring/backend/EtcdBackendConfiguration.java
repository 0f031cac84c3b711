package dev.distlock.spring.backend;

import dev.distlock.core.LockRegistry;
import dev.distlock.etcd.EtcdLockRegistry;
import dev.distlock.spring.DistributedLockProperties;
import dev.distlock.spring.EtcdLockProperties;
import dev.distlock.spring.LockBackendType;
import dev.distlock.spring.LockStartupException;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The etcd backend over the application's jetcd {@link Client}, or one built from the properties. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnLockBackend(LockBackendType.ETCD)
class EtcdBackendConfiguration {

    /** At least etcd's default --grpc-keepalive-min-time (5s). */
    static final Duration KEEPALIVE_TIME = Duration.ofSeconds(30);

    static final Duration KEEPALIVE_TIMEOUT = Duration.ofSeconds(10);

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    EtcdLockRegistry lockRegistry(
            DistributedLockProperties properties, Client client, ObjectProvider<StarterClientEndpoints> starterClient) {
        EtcdLockRegistry.Builder builder = EtcdLockRegistry.builder(client)
                .namespace(PropertyChecks.notBlank(
                        "etcd.namespace", properties.getEtcd().getNamespace()))
                .options(PropertyChecks.registryOptions(properties));
        // The application's own client may point elsewhere than the endpoint properties, so its registry keeps the
        // builder's neutral wording.
        starterClient.ifAvailable(endpoints -> builder.address(endpoints.address()));
        return LockBackendStartup.build(LockBackendType.ETCD, builder::build);
    }

    /** The endpoints of the client the starter built from {@code distributed-lock.etcd.*}, for error messages. */
    record StarterClientEndpoints(String address) {}

    /** A jetcd client from the properties, unless the application has its own. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(Client.class)
    static class ClientFromPropertiesConfiguration {

        @Bean(destroyMethod = "close")
        Client distributedLockEtcdClient(DistributedLockProperties properties) {
            return clientBuilder(properties.getEtcd()).build();
        }

        /**
         * The client's settings. Keep-alive pings go out every 30s and only while calls are open, since etcd's
         * default policy answers more frequent pings with GOAWAY "too_many_pings".
         */
        static ClientBuilder clientBuilder(EtcdLockProperties etcd) {
            // Requests refuse a member cut off from the leader, so the client moves on to another endpoint.
            ClientBuilder builder = EtcdLockRegistry.requireLeader(Client.builder())
                    .endpoints(endpoints(etcd).toArray(String[]::new))
                    .keepaliveTime(KEEPALIVE_TIME)
                    .keepaliveTimeout(KEEPALIVE_TIMEOUT)
                    .keepaliveWithoutCalls(false);
            if (etcd.getUsername() != null && !etcd.getUsername().isBlank()) {
                builder.user(bytes(etcd.getUsername()))
                        .password(bytes(PropertyChecks.notBlank("etcd.password", etcd.getPassword())));
            }
            EtcdLockProperties.Tls tls = etcd.getTls();
            if (tls.getCaFile() != null || tls.getCertFile() != null) {
                configureTls(builder, tls);
            }
            return builder;
        }

        @Bean
        StarterClientEndpoints distributedLockEtcdClientEndpoints(DistributedLockProperties properties) {
            return new StarterClientEndpoints(String.join(",", endpoints(properties.getEtcd())));
        }

        private static List<String> endpoints(EtcdLockProperties etcd) {
            List<String> endpoints = etcd.getEndpoints();
            if (endpoints == null
                    || endpoints.isEmpty()
                    || endpoints.stream().anyMatch(e -> e == null || e.isBlank())) {
                throw PropertyChecks.invalid(
                        "etcd.endpoints", endpoints, "must list etcd URLs, e.g. http://127.0.0.1:2379");
            }
            return endpoints;
        }
    }

    private static void configureTls(ClientBuilder builder, EtcdLockProperties.Tls tls) {
        if ((tls.getCertFile() == null) != (tls.getKeyFile() == null)) {
            throw PropertyChecks.invalid(
                    "etcd.tls.cert-file",
                    tls.getCertFile(),
                    "and distributed-lock.etcd.tls.key-file must be set together");
        }
        try {
            builder.sslContext(ssl -> {
                if (tls.getCaFile() != null) {
                    ssl.trustManager(readable("etcd.tls.ca-file", tls.getCaFile()));
                }
                if (tls.getCertFile() != null) {
                    ssl.keyManager(
                            readable("etcd.tls.cert-file", tls.getCertFile()),
                            readable("etcd.tls.key-file", tls.getKeyFile()));
                }
            });
        } catch (SSLException e) {
            throw new LockStartupException(
                    "Could not set up TLS for etcd from distributed-lock.etcd.tls.*: " + e.getMessage(),
                    "Check the PEM files that distributed-lock.etcd.tls.ca-file, cert-file and key-file name.",
                    e);
        }
    }

    private static File readable(String property, String path) {
        File file = new File(path);
        if (!file.canRead()) {
            throw PropertyChecks.invalid(property, path, "must name a readable PEM file");
        }
        return file;
    }

    private static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }
}
