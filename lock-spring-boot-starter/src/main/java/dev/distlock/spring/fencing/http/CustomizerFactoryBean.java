package dev.distlock.spring.fencing.http;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.Consumer;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.util.ClassUtils;

/**
 * A Spring Boot client customizer of either Boot line from one jar: Boot 4 and 3.5 keep {@code
 * RestClientCustomizer}, {@code RestTemplateCustomizer} and {@code WebClientCustomizer} in different
 * packages with the same one method, {@code customize(T)}. The customizer is a proxy of the
 * interface named, so nothing here is compiled against either line.
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
