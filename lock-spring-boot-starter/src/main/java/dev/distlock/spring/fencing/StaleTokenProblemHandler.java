package dev.distlock.spring.fencing;

import dev.distlock.core.fencing.StaleTokenException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers a stale fencing token in Spring MVC or WebFlux with {@code 409 Conflict} and a problem detail naming the
 * resource, the lock and both tokens. The lowest order lets an application's own handler win.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
class StaleTokenProblemHandler {

    private static final Logger log = LoggerFactory.getLogger(StaleTokenProblemHandler.class);

    @ExceptionHandler(StaleFencingTokenException.class)
    ResponseEntity<ProblemDetail> staleFencingToken(StaleFencingTokenException e) {
        return conflict((StaleTokenException) e.getCause());
    }

    @ExceptionHandler(StaleTokenException.class)
    ResponseEntity<ProblemDetail> staleToken(StaleTokenException e) {
        return conflict(e);
    }

    private static ResponseEntity<ProblemDetail> conflict(StaleTokenException e) {
        log.debug("Answered 409 Conflict: {}", e.getMessage());
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.CONFLICT,
                "The resource '" + e.resource() + "' refused fencing token " + e.refused() + " of lock '"
                        + e.lockKey() + "': a newer holder of the lock has written to it, so this request's lock"
                        + " was lost and its changes were not applied. Send the request again.");
        problem.setTitle("Stale fencing token");
        problem.setProperty("resource", e.resource());
        problem.setProperty("lockKey", e.lockKey());
        problem.setProperty("refusedToken", e.refused().value());
        problem.setProperty("highestToken", e.highest().value());
        return ResponseEntity.status(HttpStatus.CONFLICT)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }
}
