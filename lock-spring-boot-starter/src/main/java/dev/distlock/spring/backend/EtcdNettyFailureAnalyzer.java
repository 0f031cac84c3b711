package dev.distlock.spring.backend;

import java.util.Arrays;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Explains the etcd client's {@code NoClassDefFoundError} of a Netty class when the application manages Netty 4.1
 * (jetcd's Vert.x 5 needs Netty 4.2), naming the property to set.
 */
class EtcdNettyFailureAnalyzer extends AbstractFailureAnalyzer<NoClassDefFoundError> implements Ordered {

    /** The Netty line the etcd client is built and tested with. */
    static final String NETTY_VERSION = "4.2.17.Final";

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, NoClassDefFoundError cause) {
        String missing = String.valueOf(cause.getMessage());
        if (!missing.startsWith("io/netty/") || !fromEtcdClient(cause)) {
            return null;
        }
        return new FailureAnalysis(
                "The etcd lock backend could not start: Netty class " + missing.replace('/', '.')
                        + " is missing. The etcd client (jetcd on Vert.x 5) needs Netty 4.2, and the application"
                        + " manages an older Netty (Spring Boot 3.5 manages Netty 4.1).",
                "Use Netty " + NETTY_VERSION + ": under spring-boot-starter-parent set the property"
                        + " <netty.version>" + NETTY_VERSION + "</netty.version> in your pom (Gradle:"
                        + " ext['netty.version'] = '" + NETTY_VERSION + "'), or import io.netty:netty-bom:"
                        + NETTY_VERSION + " before Spring Boot's BOM. Spring Boot 4 needs nothing.",
                cause);
    }

    /** Thrown on the etcd client's path (jetcd, Vert.x or distlock's etcd backend). */
    private static boolean fromEtcdClient(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            boolean etcd = Arrays.stream(t.getStackTrace())
                    .map(StackTraceElement::getClassName)
                    .anyMatch(name -> name.startsWith("io.etcd.jetcd.")
                            || name.startsWith("io.vertx.")
                            || name.startsWith("dev.distlock.etcd."));
            if (etcd) {
                return true;
            }
        }
        return false;
    }

    /** Before the general analyzers, which would report the error without the fix. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
