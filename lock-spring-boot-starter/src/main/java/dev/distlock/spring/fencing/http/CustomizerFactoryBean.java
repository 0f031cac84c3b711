package dev.distlock.spring.fencing.http;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.Consumer;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.util.ClassUtils;

/**
 * A Spring Boot HTTP client customizer of Boot 4 or Boot 3.5, as a proxy of the interface named, since the two keep
 * it in different packages.
 */
final class CustomizerFactoryBean implements FactoryBean<Object> {

    private final Class<?> customizerType;
    private final Consumer<Object> customize;

    CustomizerFactoryBean(String customizerType, Consumer<Object> customize, ClassLoader classLoader) {
        this.customizerType = ClassUtils.resolveClassName(customizerType, classLoader);
        this.customize = customize;
    }

    @Override
    public Object getObject() {
        return Proxy.newProxyInstance(customizerType.getClassLoader(), new Class<?>[] {customizerType}, this::invoke);
    }

    @Override
    public Class<?> getObjectType() {
        return customizerType;
    }

    private Object invoke(Object proxy, Method method, Object[] args) {
        return switch (method.getName()) {
            case "customize" -> {
                customize.accept(args[0]);
                yield null;
            }
            case "toString" -> "Distlock-Fence header " + customizerType.getSimpleName();
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            default -> throw new UnsupportedOperationException(method.toString());
        };
    }
}
