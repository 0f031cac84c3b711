package dev.distlock.fencing.http;

import dev.distlock.core.fencing.FenceRule;
import java.util.Objects;

/**
 * Requests whose path matches {@code pattern} (Spring's {@code PathPattern} syntax, e.g. {@code
 * /orders/{id}/**}) are fenced as {@code resource}, whose {@code {name}} parts are replaced by the
 * pattern's variables.
 */
public record FencedPath(String pattern, String resource) {

    public FencedPath {
        Objects.requireNonNull(pattern, "pattern");
        if (!pattern.startsWith("/")) {
            throw new IllegalArgumentException("Fenced path pattern '" + pattern + "' must start with '/'");
        }
        if (resource == null || resource.isBlank()) {
            throw new IllegalArgumentException("Fenced path pattern '" + pattern + "' needs a resource name");
        }
        if (!resource.contains("{")) {
            FenceRule.checkResource(resource);
        }
    }
}
