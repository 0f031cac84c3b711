package dev.distlock.test.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.test.context.TestPropertySource;

/**
 * On a Spring test class ({@code @SpringBootTest} or a slice), makes the application's {@link
 * dev.distlock.core.LockRegistry} a {@link dev.distlock.test.ControlledLockRegistry},
 * whichever backend the configuration names, so no lock server is contacted. Its {@link
 * dev.distlock.test.LockControl} can be injected, and is reset after each test method.
 *
 * <p>The backend's own beans are left out by selecting {@code distributed-lock.backend=memory} for
 * the test; {@code @DistributedLock}, {@code LockContext} and the rest of the starter work as usual
 * with the controlled registry.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@TestPropertySource(properties = "distributed-lock.backend=memory")
public @interface AutoConfigureTestLocks {}
