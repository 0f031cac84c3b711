package dev.distlock.spring.web;

import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.spring.aspect.MethodLockNotAcquiredException;
import dev.distlock.spring.semaphore.SemaphoreNotAcquiredException;
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
 * Answers a {@link LockNotAcquiredException} in Spring MVC or WebFlux with {@code 423 Locked}, a problem detail and
 * {@code Retry-After}, logged at DEBUG only. The lowest order lets an application's own handler win.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
class LockNotAcquiredProblemHandler {

    private static final Logger log = LoggerFactory.getLogger(LockNotAcquiredProblemHandler.class);
    private static final Duration MIN_RETRY_AFTER = Duration.ofSeconds(1);

    @ExceptionHandler(LockNotAcquiredException.class)
    ResponseEntity<ProblemDetail> lockNotAcquired(LockNotAcquiredException e) {
        log.debug("Answered 423 Locked: {}", e.getMessage());
        // The key as the application names it (no key prefix), as the actuator's lock lookup takes it.
        String key = e.key();
        Duration retryAfter = MIN_RETRY_AFTER;
        if (e instanceof MethodLockNotAcquiredException method) {
            // The key stayed busy for the whole wait, so asking again sooner is likely to fail again.
            if (method.waitTime().compareTo(retryAfter) > 0) {
                retryAfter = method.waitTime();
            }
        }
        String detail = "The lock '" + key + "' is held by another operation; retry later.";
        if (e instanceof SemaphoreNotAcquiredException semaphore) {
            retryAfter = semaphore.waitTime().compareTo(retryAfter) > 0 ? semaphore.waitTime() : retryAfter;
            detail = "Every permit of '" + key + "' is held by other operations; retry later.";
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.LOCKED, detail);
        problem.setTitle("Locked");
        problem.setProperty("lockKey", key);
        return ResponseEntity.status(HttpStatus.LOCKED)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(wholeSecondsUp(retryAfter)))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }

    private static long wholeSecondsUp(Duration duration) {
        return duration.getSeconds() + (duration.getNano() > 0 ? 1 : 0);
    }
}
