package dev.distlock.spring.backend;

import dev.distlock.spring.LockBackendType;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Conditional;

/** Matches when the given backend is the one {@link LockBackendSelection} chooses. */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnLockBackendCondition.class)
@interface ConditionalOnLockBackend {

    LockBackendType value();
}
