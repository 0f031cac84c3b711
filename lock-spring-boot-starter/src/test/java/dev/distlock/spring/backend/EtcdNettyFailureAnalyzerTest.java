package dev.distlock.spring.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

class EtcdNettyFailureAnalyzerTest {

    private final EtcdNettyFailureAnalyzer analyzer = new EtcdNettyFailureAnalyzer();

    @Test
    void aMissingNettyClassOnTheEtcdClientsPathSaysWhichPropertyToSet() {
        NoClassDefFoundError error =
                errorAt("io/netty/channel/MultiThreadIoEventLoopGroup", "io.vertx.core.impl.VertxImpl");
        FailureAnalysis analysis = analyzer.analyze(new BeanCreationException("lockRegistry", "failed", error));

        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription())
                .contains("io.netty.channel.MultiThreadIoEventLoopGroup")
                .contains("Netty 4.2")
                .contains("etcd");
        assertThat(analysis.getAction())
                .contains("<netty.version>4.2.17.Final</netty.version>")
                .contains("io.netty:netty-bom:4.2.17.Final");
    }

    @Test
    void otherMissingClassesAreLeftToOtherAnalyzers() {
        assertThat(analyzer.analyze(errorAt("io/netty/channel/MultiThreadIoEventLoopGroup", "com.example.Other")))
                .as("Netty, not on the etcd client's path")
                .isNull();
        assertThat(analyzer.analyze(errorAt("com/example/Missing", "io.etcd.jetcd.ClientBuilder")))
                .as("on the etcd client's path, not Netty")
                .isNull();
    }

    @Test
    void springBootFindsTheAnalyzer() {
        List<String> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
                .load(
                        FailureAnalyzer.class,
                        null,
                        // Analyzers of other jars may need constructor arguments: not the question here.
                        SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> {}))
                .stream()
                .map(analyzer -> analyzer.getClass().getName())
                .toList();
        assertThat(analyzers).contains(EtcdNettyFailureAnalyzer.class.getName());
    }

    private static NoClassDefFoundError errorAt(String missing, String thrownIn) {
        NoClassDefFoundError error = new NoClassDefFoundError(missing);
        error.setStackTrace(new StackTraceElement[] {
            new StackTraceElement(thrownIn, "init", "Source.java", 1),
            new StackTraceElement("dev.distlock.spring.backend.EtcdBackendConfiguration", "registry", "Source.java", 2)
        });
        return error;
    }
}
