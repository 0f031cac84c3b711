package dev.distlock.fencing.http;

import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.FencingClaim;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.AsyncHandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.util.UrlPathHelper;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Spring MVC's half of a fenced endpoint. Before a handler marked {@link FencedEndpoint} (or a
 * request matching a {@link FencedPath}) runs, the {@value FenceHeader#NAME} header's claim is
 * admitted by the fence store as a writer of the resource, and the request is answered with a
 * problem detail otherwise: {@code 428} without the header, {@code 400} when it does not parse,
 * {@code 409} when its token is stale or of another lock key or backend. Requests to one resource
 * run one at a time in this instance, from the check to the handler's end.
 */
public final class FencedEndpointInterceptor implements AsyncHandlerInterceptor {

    /** Request attribute holding the admitted {@link FencingClaim}, for handlers that write under it. */
    public static final String CLAIM_ATTRIBUTE = FencedEndpointInterceptor.class.getName() + ".claim";

    private static final String GATE_ATTRIBUTE = FencedEndpointInterceptor.class.getName() + ".gate";
    private static final Pattern VARIABLE = Pattern.compile("\\{([^{}]+)}");

    private final FenceCheck check;
    private final List<Matching> paths;
    private final Duration wait;
    private final ResourceGates gates = new ResourceGates();

    /**
     * @param store the fence store that admits claims
     * @param paths paths fenced without an annotation
     * @param wait how long a request waits for another request to the same resource to end (then 503)
     */
    public FencedEndpointInterceptor(FenceStore store, List<FencedPath> paths, Duration wait) {
        this.check = new FenceCheck(store);
        this.paths = paths.stream()
                .map(path -> new Matching(PathPatternParser.defaultInstance.parse(path.pattern()), path.resource()))
                .toList();
        this.wait = Objects.requireNonNull(wait, "wait");
    }

    /** The claim admitted for this request, or empty when its handler is not fenced. */
    public static Optional<FencingClaim> admittedClaim(HttpServletRequest request) {
        return Optional.ofNullable((FencingClaim) request.getAttribute(CLAIM_ATTRIBUTE));
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
            throws IOException, InterruptedException {
        if (request.getAttribute(CLAIM_ATTRIBUTE) != null) {
            return true; // the async dispatch of a request admitted before
        }
        String resource = resource(request, handler);
        if (resource == null) {
            return true;
        }
        ResourceGates.Gate gate = gates.enter(resource, wait);
        if (gate == null) {
            write(
                    response,
                    request,
                    new FenceCheck.Problem(
                            503,
                            "Service Unavailable",
                            "Resource '" + resource + "' was busy with another fenced request for " + wait.toMillis()
                                    + " ms; retry later.",
                            Map.of("resource", resource)));
            return false;
        }
        boolean admitted = false;
        try {
            FenceCheck.Outcome outcome = check.check(resource, request.getHeader(FenceHeader.NAME));
            if (outcome.problem() != null) {
                write(response, request, outcome.problem());
                return false;
            }
            request.setAttribute(CLAIM_ATTRIBUTE, outcome.claim());
            request.setAttribute(GATE_ATTRIBUTE, gate);
            admitted = true;
            return true;
        } finally {
            if (!admitted) {
                gates.leave(gate);
            }
        }
    }

    @Override
    public void afterCompletion(
            HttpServletRequest request, HttpServletResponse response, Object handler, Exception ex) {
        Object gate = request.getAttribute(GATE_ATTRIBUTE);
        if (gate != null) {
            request.removeAttribute(GATE_ATTRIBUTE);
            gates.leave((ResourceGates.Gate) gate);
        }
    }

    private String resource(HttpServletRequest request, Object handler) {
        if (handler instanceof HandlerMethod method) {
            FencedEndpoint fenced =
                    AnnotatedElementUtils.findMergedAnnotation(method.getMethod(), FencedEndpoint.class);
            if (fenced == null) {
                fenced = AnnotatedElementUtils.findMergedAnnotation(method.getBeanType(), FencedEndpoint.class);
            }
            if (fenced != null) {
                @SuppressWarnings("unchecked")
                Map<String, String> variables =
                        (Map<String, String>) request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
                return expand(fenced.value(), variables == null ? Map.of() : variables);
            }
        }
        if (paths.isEmpty()) {
            return null;
        }
        PathContainer path = PathContainer.parsePath(UrlPathHelper.defaultInstance.getPathWithinApplication(request));
        for (Matching matching : paths) {
            PathPattern.PathMatchInfo match = matching.pattern().matchAndExtract(path);
            if (match != null) {
                return expand(matching.resource(), match.getUriVariables());
            }
        }
        return null;
    }

    private static String expand(String resource, Map<String, String> variables) {
        Matcher matcher = VARIABLE.matcher(resource);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            String value = variables.get(matcher.group(1));
            if (value == null) {
                throw new IllegalStateException("Fenced resource '" + resource + "' names variable '"
                        + matcher.group(1) + "', which the request's path does not have; variables: "
                        + variables.keySet());
            }
            matcher.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        return matcher.appendTail(out).toString();
    }

    private static void write(HttpServletResponse response, HttpServletRequest request, FenceCheck.Problem problem)
            throws IOException {
        response.setStatus(problem.status());
        response.setContentType("application/problem+json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write(problem.toJson(request.getRequestURI()));
        response.getWriter().flush();
    }

    private record Matching(PathPattern pattern, String resource) {}
}
