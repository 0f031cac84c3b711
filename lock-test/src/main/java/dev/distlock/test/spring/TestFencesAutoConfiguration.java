package dev.distlock.test.spring;

import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.MemoryFenceStore;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * A fence store in memory for {@link AutoConfigureTestLocks}, when the application has none. After the
 * starter's fencing configuration, so an application with a {@code DataSource} keeps its SQL fence store
 * and its own {@code FenceStore} bean wins. {@code @Fenced} methods and tests that inject a {@code
 * FenceStore} then work without a database.
 */
@AutoConfiguration(afterName = "dev.distlock.spring.fencing.FencingAutoConfiguration")
public final class TestFencesAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(FenceStore.class)
    MemoryFenceStore testFenceStore() {
        return new MemoryFenceStore();
    }
}
