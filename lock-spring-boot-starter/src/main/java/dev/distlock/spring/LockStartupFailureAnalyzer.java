package dev.distlock.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a {@link LockStartupException} into Spring Boot's start-up failure report. */
class LockStartupFailureAnalyzer extends AbstractFailureAnalyzer<LockStartupException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockStartupException cause) {
        return new FailureAnalysis(cause.description(), cause.action(), cause);
    }
}
