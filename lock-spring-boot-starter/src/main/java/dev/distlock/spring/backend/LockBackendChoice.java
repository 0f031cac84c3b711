package dev.distlock.spring.backend;

import dev.distlock.spring.LockBackendType;
import dev.distlock.spring.LockStartupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * The backend chosen when the bean definitions were made, at start-up or, with Spring AOT, at build time. A different
 * backend at run time then fails start-up.
 */
final class LockBackendChoice implements EnvironmentAware, BeanClassLoaderAware, InitializingBean {

    private static final Logger log = LoggerFactory.getLogger(LockBackendChoice.class);

    private final LockBackendType chosen;
    private Environment environment;
    private ClassLoader classLoader;

    LockBackendChoice(LockBackendType chosen) {
        this.chosen = chosen;
    }

    LockBackendType chosen() {
        return chosen;
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    @Override
    public void afterPropertiesSet() {
        if (AotDetector.useGeneratedArtifacts()) {
            log.info("Lock backend: {} (chosen when the application was built ahead of time)", chosen);
        }
        LockBackendSelection now = LockBackendSelection.select(environment, classLoader);
        if (now.backend() == chosen) {
            return;
        }
        String runTime = now.backend() != null ? LockBackendSelection.PROPERTY + "=" + now.backend() : now.problem();
        throw new LockStartupException(
                "This application was built ahead of time (Spring AOT) with the " + chosen + " lock backend,"
                        + " which cannot change at run time, but at run time: " + runTime,
                "Build the application again with " + LockBackendSelection.PROPERTY + " set to the backend you"
                        + " want, or leave the property as it was at build time (" + chosen + ").");
    }
}
