package dev.distlock.spring.aspect;

import dev.distlock.core.FencedLock;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * {@code @DistributedLock} methods that return a Kotlin {@code Flow}, adapted to a Flux and locked as one. Used only
 * when {@link ReturnTypes#COROUTINES}.
 */
final class KotlinFlows {

    private KotlinFlows() {}

    static Object flow(
            FencedLock lock, LockedMethod locked, MethodInvocation invocation, Supplier<RuntimeException> notAcquired) {
        ReactiveAdapter adapter = adapter();
        return adapter.fromPublisher(ReactiveLockedCalls.flux(
                lock,
                locked,
                () -> {
                    Object flow = invocation.proceed();
                    return flow == null ? null : adapter.toPublisher(flow);
                },
                notAcquired));
    }

    private static ReactiveAdapter adapter() {
        Class<?> flow = ClassUtils.resolveClassName(ReturnTypes.FLOW, KotlinFlows.class.getClassLoader());
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(flow);
        if (adapter == null) {
            throw new IllegalStateException("Spring has no reactive adapter for " + ReturnTypes.FLOW
                    + " although kotlinx-coroutines-reactor is on the classpath; check that spring-core and"
                    + " kotlinx-coroutines-reactor versions match.");
        }
        return adapter;
    }
}
