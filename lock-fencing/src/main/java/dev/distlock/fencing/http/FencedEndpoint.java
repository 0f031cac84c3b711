package dev.distlock.fencing.http;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a Spring MVC handler (or every handler of a controller) as fenced. A request must carry the
 * {@value FenceHeader#NAME} header, whose claim the fence store admits as a writer of the resource
 * before the handler runs ({@code 428} without it, {@code 409} when it is stale, {@code 400} when it
 * does not parse). See {@code docs/fencing.md}.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface FencedEndpoint {

    /**
     * The fenced resource's name; {@code {name}} is replaced by the request's URI template variable
     * of that name (e.g. {@code "order:{id}"} on {@code /orders/{id}}).
     */
    String value();
}
