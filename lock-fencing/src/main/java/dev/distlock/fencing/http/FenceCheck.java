package dev.distlock.fencing.http;

import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FenceMismatchException;
import dev.distlock.core.fencing.FenceRule;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a fenced endpoint decides about one request, apart from the web stack that asks. The header
 * parsed and admitted by the store, or the problem to answer.
 */
final class FenceCheck {

    private final FenceStore store;

    FenceCheck(FenceStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /** The outcome for a request to {@code resource} with header value {@code header} (null: absent). */
    Outcome check(String resource, String header) {
        try {
            FenceRule.checkResource(resource);
        } catch (IllegalArgumentException e) {
            return Outcome.problem(new Problem(400, "Bad Request", e.getMessage(), Map.of()));
        }
        if (header == null || header.isEmpty()) {
            return Outcome.problem(new Problem(
                    428,
                    "Precondition Required",
                    "Resource '" + resource + "' is fenced: send the " + FenceHeader.NAME
                            + " header of the lock hold you write under (RestClient, RestTemplate and WebClient"
                            + " beans of the distlock starter add it inside a @DistributedLock method).",
                    Map.of("resource", resource, "header", FenceHeader.NAME)));
        }
        FencingClaim claim;
        try {
            claim = FenceHeader.parse(header);
        } catch (InvalidFenceHeaderException e) {
            return Outcome.problem(new Problem(
                    400, "Bad Request", e.getMessage(), Map.of("resource", resource, "header", FenceHeader.NAME)));
        }
        try {
            return Outcome.admitted(claim, store.admitWrite(resource, claim));
        } catch (StaleTokenException e) {
            Map<String, Object> properties = new LinkedHashMap<>();
            properties.put("resource", resource);
            properties.put("lockKey", claim.lockKey());
            properties.put("backend", claim.backend());
            properties.put("token", Long.toString(claim.token().value()));
            properties.put("highest", Long.toString(e.highest().value()));
            return Outcome.problem(new Problem(409, "Conflict", e.getMessage(), properties));
        } catch (FenceMismatchException e) {
            Map<String, Object> properties = new LinkedHashMap<>();
            properties.put("resource", resource);
            properties.put("lockKey", claim.lockKey());
            properties.put("backend", claim.backend());
            properties.put("guardedBy", e.fence().lockKey());
            properties.put("guardedByBackend", e.fence().backend());
            return Outcome.problem(new Problem(409, "Conflict", e.getMessage(), properties));
        }
    }

    /** The store admitted {@code claim} (and {@code fence} is the resource's fence after it), or a problem. */
    record Outcome(FencingClaim claim, Fence fence, Problem problem) {

        static Outcome admitted(FencingClaim claim, Fence fence) {
            return new Outcome(claim, fence, null);
        }

        static Outcome problem(Problem problem) {
            return new Outcome(null, null, problem);
        }
    }

    /** An RFC 9457 problem detail ({@code type} about:blank, so the title is the status's phrase). */
    record Problem(int status, String title, String detail, Map<String, Object> properties) {

        String toJson(String instance) {
            StringBuilder json = new StringBuilder("{\"type\":\"about:blank\",\"title\":");
            quote(json, title).append(",\"status\":").append(status).append(",\"detail\":");
            quote(json, detail);
            if (instance != null) {
                quote(json.append(",\"instance\":"), instance);
            }
            for (Map.Entry<String, Object> property : properties.entrySet()) {
                quote(json.append(','), property.getKey()).append(':');
                quote(json, String.valueOf(property.getValue()));
            }
            return json.append('}').toString();
        }

        private static StringBuilder quote(StringBuilder json, String text) {
            json.append('"');
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                switch (c) {
                    case '"' -> json.append("\\\"");
                    case '\\' -> json.append("\\\\");
                    case '\n' -> json.append("\\n");
                    case '\r' -> json.append("\\r");
                    case '\t' -> json.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            json.append(String.format("\\u%04x", (int) c));
                        } else {
                            json.append(c);
                        }
                    }
                }
            }
            return json.append('"');
        }
    }
}
