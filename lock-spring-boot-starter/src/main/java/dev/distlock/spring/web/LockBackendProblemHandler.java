package dev.distlock.spring.web;

import dev.distlock.core.LockBackendException;
import dev.distlock.spring.LockKeyException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers lock failures other than contention in Spring MVC and WebFlux with problem details that name no server.
 * A {@link LockBackendException} gets {@code 503} with {@code Retry-After}, a {@link LockKeyException} gets
 * {@code 500}. The lowest order lets an application's own handler win.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
class LockBackendProblemHandler {

    /** Long enough for a reconnect or failover to finish, short enough to notice the return soon. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(LockBackendProblemHandler.class);

    private final BackendOutages outages;

    LockBackendProblemHandler(BackendOutages outages) {
        this.outages = outages;
    }

    @ExceptionHandler(LockBackendException.class)
    ResponseEntity<ProblemDetail> backendUnavailable(LockBackendException e) {
        outages.failed(e, "answering 503 Service Unavailable");
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.SERVICE_UNAVAILABLE, "The lock service is unavailable; retry later.");
        problem.setTitle("Service Unavailable");
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(RETRY_AFTER.toSeconds()))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }

    /** A key expression that failed or gave a blank key. It is a programming error, logged with its cause. */
    @ExceptionHandler(LockKeyException.class)
    ResponseEntity<ProblemDetail> keyNotEvaluated(LockKeyException e) {
        log.error("Answered 500: {}", e.getMessage(), e);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.INTERNAL_SERVER_ERROR, "The lock key of " + e.methodName() + " could not be computed.");
        problem.setTitle("Lock Key Error");
        return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }
}
