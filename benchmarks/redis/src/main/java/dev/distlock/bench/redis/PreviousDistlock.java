package dev.distlock.bench.redis;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * An earlier build of distlock (its lock-core and lock-redis jars, given by the system property
 * {@code distlock.previous}, a path-separated list) loaded beside the current one, so that one
 * run compares before and after on the same server. Its classes are loaded first from those jars;
 * Spring and Lettuce come from the benchmark's own class path.
 */
final class PreviousDistlock {

    private PreviousDistlock() {}

    static boolean configured() {
        return System.getProperty("distlock.previous") != null;
    }

    static Contender open(String host, int port) {
        try {
            URL[] jars = java.util.Arrays.stream(
                            System.getProperty("distlock.previous").split(java.io.File.pathSeparator))
                    .map(path -> {
                        try {
                            return Path.of(path).toUri().toURL();
                        } catch (java.net.MalformedURLException e) {
                            throw new IllegalArgumentException(path, e);
                        }
                    })
                    .toArray(URL[]::new);
            ClassLoader loader = new ChildFirst(jars, PreviousDistlock.class.getClassLoader());
            LettuceConnectionFactory factory =
                    new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
            factory.afterPropertiesSet();
            factory.start();
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> registryType = loader.loadClass("dev.distlock.redis.RedisLockRegistry");
            Object builder = lookup.findStatic(
                            registryType,
                            "builder",
                            MethodType.methodType(registryType.getDeclaredClasses()[0], RedisConnectionFactory.class))
                    .invoke(factory);
            Object registry = builder.getClass().getMethod("build").invoke(builder);
            Class<?> lockType = loader.loadClass("dev.distlock.core.FencedLock");
            Class<?> handleType = loader.loadClass("dev.distlock.core.LockHandle");
            MethodHandle obtain = lookup.findVirtual(
                    loader.loadClass("dev.distlock.core.LockRegistry"),
                    "obtain",
                    MethodType.methodType(lockType, String.class));
            MethodHandle acquire = lookup.findVirtual(lockType, "acquire", MethodType.methodType(handleType));
            MethodHandle close = lookup.findVirtual(handleType, "close", MethodType.methodType(void.class));
            return new Contender() {
                @Override
                public String name() {
                    return "distlock before (" + System.getProperty("distlock.previous.name", "previous build") + ")";
                }

                @Override
                public LockOps forKey(String key) {
                    Object lock = invoke(obtain, registry, key);
                    return new LockOps() {
                        private Object handle;

                        @Override
                        public void acquire() throws Exception {
                            handle = invoke(acquire, lock);
                        }

                        @Override
                        public void release() throws Exception {
                            invoke(close, handle);
                        }
                    };
                }

                @Override
                public void close() {
                    try {
                        ((AutoCloseable) registry).close();
                    } catch (Exception e) {
                        System.err.println("closing the previous registry failed: " + e);
                    }
                    factory.destroy();
                }
            };
        } catch (Throwable e) {
            throw new IllegalStateException(
                    "Could not load the previous distlock build from "
                            + List.of(System.getProperty("distlock.previous")),
                    e);
        }
    }

    private static Object invoke(MethodHandle handle, Object... args) {
        try {
            return handle.invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Loads dev.distlock classes and resources (the Lua scripts) from the given jars first, everything else from the parent. */
    private static final class ChildFirst extends URLClassLoader {

        ChildFirst(URL[] jars, ClassLoader parent) {
            super(jars, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("dev.distlock.") || name.startsWith("dev.distlock.bench.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    loaded = findClass(name);
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }

        @Override
        public URL getResource(String name) {
            URL own = name.startsWith("dev/distlock/") ? findResource(name) : null;
            return own != null ? own : super.getResource(name);
        }
    }
}
