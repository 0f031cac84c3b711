package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockRegistry;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Which address the etcd registry names in its errors; jetcd clients connect lazily, so no server is needed. */
class EtcdBackendConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
            // No etcd listens at these addresses: the start-up check is off for these wiring tests.
            .withPropertyValues("distributed-lock.backend=etcd", "distributed-lock.startup-check.mode=off");

    @Test
    void registryOverTheStartersClientNamesTheConfiguredEndpoints() {
        runner.withPropertyValues("distributed-lock.etcd.endpoints=http://127.0.0.1:23790,http://127.0.0.1:23791")
                .run(context -> assertThat(context.getBean(LockRegistry.class).toString())
                        .contains("http://127.0.0.1:23790,http://127.0.0.1:23791"));
    }

    @Test
    void registryOverTheApplicationsClientDoesNotNameTheEndpointProperties() {
        Client own = Client.builder().endpoints("http://127.0.0.1:23795").build();
        try {
            runner.withBean("myEtcd", Client.class, () -> own, d -> d.setDestroyMethodName(""))
                    .withPropertyValues("distributed-lock.etcd.endpoints=http://127.0.0.1:23790")
                    .run(context -> {
                        assertThat(context).getBeans(Client.class).containsOnlyKeys("myEtcd");
                        assertThat(context.getBean(LockRegistry.class).toString())
                                .contains("the endpoints of the given jetcd Client")
                                .doesNotContain("127.0.0.1");
                    });
        } finally {
            own.close();
        }
    }

    @Test
    void registryOverTheApplicationsClientIgnoresTheDefaultEndpoints() {
        Client own = Client.builder().endpoints("http://127.0.0.1:23795").build();
        try {
            runner.withBean("myEtcd", Client.class, () -> own, d -> d.setDestroyMethodName(""))
                    .run(context -> assertThat(
                                    context.getBean(LockRegistry.class).toString())
                            .doesNotContain("2379"));
        } finally {
            own.close();
        }
    }
}
