package dev.distlock.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * A jetcd client whose watches are accepted and never report anything: a watch stream that lost
 * its events. Everything else goes to the real client.
 */
final class WatchlessClient {

    private WatchlessClient() {}

    static Client over(Client real) {
        Watch deaf = proxy(Watch.class, (proxy, method, args) -> switch (method.getName()) {
            case "watch" ->
                proxy(Watch.Watcher.class, (watcher, call, none) -> switch (call.getName()) {
                    case "isClosed" -> false;
                    case "hashCode" -> System.identityHashCode(watcher);
                    case "equals" -> watcher == none[0];
                    case "toString" -> "watcher that hears nothing";
                    default -> null;
                });
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            case "toString" -> "watch client that hears nothing";
            default -> null;
        });
        return proxy(Client.class, (proxy, method, args) -> {
            if (method.getName().equals("getWatchClient")) {
                return deaf;
            }
            try {
                return method.invoke(real, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    private static <T> T proxy(Class<T> type, InvocationHandler handler) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
