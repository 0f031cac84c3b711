package dev.distlock.spring.actuate;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Makes {@link LockHealth} a Boot health indicator on Boot 4 ({@value #BOOT_4}) or Boot 3.5 ({@value #BOOT_3}),
 * as a proxy of the interface present.
 */
final class LockHealthIndicatorFactoryBean implements FactoryBean<Object> {

    static final String BOOT_4 = "org.springframework.boot.health.contributor";
    static final String BOOT_3 = "org.springframework.boot.actuate.health";

    private final Supplier<LockHealth> health;
    private final ClassLoader classLoader;
    private final Class<?> indicatorType;
    private final Method up;
    private final Method down;

    /**
     * @param health looked up on first use, since a factory bean is created early to learn its type and must not
     *     pull the registries in then
     */
    LockHealthIndicatorFactoryBean(Supplier<LockHealth> health, ClassLoader classLoader) {
        this.health = SingletonSupplier.of(health);
        this.classLoader = classLoader;
        String api = apiPackage(classLoader);
        try {
            this.indicatorType = ClassUtils.forName(api + ".HealthIndicator", classLoader);
            Class<?> healthType = ClassUtils.forName(api + ".Health", classLoader);
            this.up = healthType.getMethod("up");
            this.down = healthType.getMethod("down");
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            throw new IllegalStateException("Spring Boot's health API in " + api + " is not the one expected", e);
        }
    }

    /** The package of the health API on the classpath, or null when there is none. */
    static String apiPackage(ClassLoader classLoader) {
        if (ClassUtils.isPresent(BOOT_4 + ".HealthIndicator", classLoader)) {
            return BOOT_4;
        }
        return ClassUtils.isPresent(BOOT_3 + ".HealthIndicator", classLoader) ? BOOT_3 : null;
    }

    @Override
    public Object getObject() {
        return Proxy.newProxyInstance(classLoader, new Class<?>[] {indicatorType}, this::invoke);
    }

    @Override
    public Class<?> getObjectType() {
        return indicatorType;
    }

    private Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        switch (method.getName()) {
            case "health" -> {
                if (method.getParameterCount() == 0) {
                    return health();
                }
            }
            case "toString" -> {
                return "DistributedLockHealthIndicator";
            }
            case "hashCode" -> {
                return System.identityHashCode(proxy);
            }
            case "equals" -> {
                return proxy == args[0];
            }
            default -> {}
        }
        if (method.isDefault()) {
            return InvocationHandler.invokeDefault(proxy, method, args);
        }
        throw new UnsupportedOperationException(method.toString());
    }

    private Object health() throws ReflectiveOperationException {
        LockHealth.Report report = health.get().check();
        Object builder = (report.up() ? up : down).invoke(null);
        builder = builder.getClass().getMethod("withDetails", Map.class).invoke(builder, report.details());
        return builder.getClass().getMethod("build").invoke(builder);
    }
}
