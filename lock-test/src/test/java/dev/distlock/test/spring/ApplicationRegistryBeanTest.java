package dev.distlock.test.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.test.ControlledLockRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

/** An application that defines its own registry bean: the controlled one is the one injected. */
@SpringBootTest(classes = ApplicationRegistryBeanTest.Application.class)
@AutoConfigureTestLocks
class ApplicationRegistryBeanTest {

    @SpringBootApplication
    static class Application {
        @Bean
        MemoryLockRegistry applicationsOwnRegistry() {
            return new MemoryLockRegistry();
        }
    }

    @Autowired
    LockRegistry registry;

    @Test
    void theControlledRegistryIsInjectedOverTheApplicationsOwn() {
        assertThat(registry).isInstanceOf(ControlledLockRegistry.class);
    }
}
