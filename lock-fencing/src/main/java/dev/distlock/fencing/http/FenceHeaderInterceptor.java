package dev.distlock.fencing.http;

import dev.distlock.core.fencing.FencingClaim;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Adds the {@value FenceHeader#NAME} header to {@code RestClient} and {@code RestTemplate} requests
 * made under a hold. A request that already has the header keeps it, one made under no hold goes
 * out unchanged.
 */
public final class FenceHeaderInterceptor implements ClientHttpRequestInterceptor {

    private final Supplier<Optional<FencingClaim>> claims;

    /** @param claims the claim of the hold the calling thread is under, if any */
    public FenceHeaderInterceptor(Supplier<Optional<FencingClaim>> claims) {
        this.claims = Objects.requireNonNull(claims, "claims");
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        if (request.getHeaders().getFirst(FenceHeader.NAME) == null) {
            claims.get().ifPresent(claim -> request.getHeaders().set(FenceHeader.NAME, FenceHeader.format(claim)));
        }
        return execution.execute(request, body);
    }
}
