package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Objects;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** What Spring Boot would print for a failed start-up: the first failure analysis that the registered analyzers give. */
final class StartupFailures {

    private StartupFailures() {}

    /** The failure analysis ("description" and "action") of the context's start-up failure; fails when there is none. */
    static String analysis(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        return analysis(context.getStartupFailure());
    }

    static String analysis(Throwable failure) {
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(
                        StartupFailures.class.getClassLoader())
                .load(FailureAnalyzer.class, SpringFactoriesLoader.FailureHandler.handleMessage((message, e) -> {}));
        FailureAnalysis analysis = analyzers.stream()
                .map(analyzer -> analyzer.analyze(failure))
                .filter(Objects::nonNull)
                .findFirst()
                .orElseThrow(() -> new AssertionError("No failure analysis for this start-up failure", failure));
        return analysis.getDescription() + "\nAction: " + analysis.getAction();
    }
}
