package dev.distlock.spring.backend;

import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLockProperties;
import dev.distlock.spring.LockBackendType;
import dev.distlock.spring.ZooKeeperLockProperties;
import dev.distlock.zookeeper.ZooKeeperLockRegistry;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The ZooKeeper backend over the application's {@link CuratorFramework}, or one built from the properties. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnLockBackend(LockBackendType.ZOOKEEPER)
class ZooKeeperBackendConfiguration {

    /** A client built from the properties when the application has none (see {@link OwnedCuratorClient}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(CuratorFramework.class)
    static class OwnedClientConfiguration {

        @Bean
        OwnedCuratorClient distributedLockOwnedCuratorClient(DistributedLockProperties properties) {
            ZooKeeperLockProperties zookeeper = properties.getZookeeper();
            Duration sessionTimeout =
                    PropertyChecks.positive("zookeeper.session-timeout", zookeeper.getSessionTimeout());
            Duration lingerLimit =
                    PropertyChecks.notNegative("zookeeper.shutdown-linger-limit", zookeeper.getShutdownLingerLimit());
            CuratorFramework client = CuratorFrameworkFactory.builder()
                    .connectString(PropertyChecks.notBlank("zookeeper.connect-string", zookeeper.getConnectString()))
                    .sessionTimeoutMs(Math.toIntExact(sessionTimeout.toMillis()))
                    .connectionTimeoutMs(Math.toIntExact(Math.min(sessionTimeout.toMillis(), 15_000)))
                    .retryPolicy(new ExponentialBackoffRetry(200, 5, 5_000))
                    .build();
            client.start();
            return new OwnedCuratorClient(client, lingerLimit);
        }

        /** Closed by {@link OwnedCuratorClient} once the registry's lingering minimum holds ended, not here. */
        @Bean(destroyMethod = "")
        CuratorFramework distributedLockCuratorFramework(OwnedCuratorClient owned) {
            return owned.client();
        }
    }

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    ZooKeeperLockRegistry lockRegistry(
            DistributedLockProperties properties, CuratorFramework client, ObjectProvider<OwnedCuratorClient> owned) {
        ZooKeeperLockRegistry.Builder builder = ZooKeeperLockRegistry.builder(client)
                .rootPath(PropertyChecks.notBlank(
                        "zookeeper.root-path", properties.getZookeeper().getRootPath()))
                .options(PropertyChecks.registryOptions(properties));
        ZooKeeperLockRegistry registry = LockBackendStartup.build(LockBackendType.ZOOKEEPER, builder::build);
        owned.ifAvailable(ownedClient -> ownedClient.closeAfter(registry));
        return registry;
    }
}
