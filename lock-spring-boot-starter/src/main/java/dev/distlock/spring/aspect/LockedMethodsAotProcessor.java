package dev.distlock.spring.aspect;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedSemaphore;
import java.lang.reflect.Method;
import java.util.Set;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * Native image hints for the {@link DistributedLock} and {@link DistributedSemaphore} methods of each bean. They are
 * invoked through the proxy by reflection, and their parameter names are read for the SpEL key.
 */
class LockedMethodsAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> type = ClassUtils.getUserClass(registeredBean.getBeanClass());
        Set<Method> methods = MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<Boolean>)
                        method -> AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class)
                                        || AnnotatedElementUtils.hasAnnotation(method, DistributedSemaphore.class)
                                ? Boolean.TRUE
                                : null)
                .keySet();
        if (methods.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> {
            ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
            methods.forEach(method -> reflection.registerMethod(method, ExecutableMode.INVOKE));
        };
    }
}
