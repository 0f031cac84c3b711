package dev.distlock.fencing.http;

import dev.distlock.core.fencing.FencingClaim;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Adds the {@value FenceHeader#NAME} header to {@code WebClient} requests made under a hold. The
 * hold in the Reactor context of the subscriber (a reactive locked method) or, failing that, the hold
 * of the subscribing thread. A request that already has the header keeps it.
 */
public final class FenceHeaderExchangeFilter implements ExchangeFilterFunction {

    private final Function<ContextView, Optional<FencingClaim>> contextClaims;
    private final Supplier<Optional<FencingClaim>> threadClaims;

    /**
     * @param contextClaims the claim of the hold in a Reactor context, if any
     * @param threadClaims the claim of the hold the subscribing thread is under, if any
     */
    public FenceHeaderExchangeFilter(
            Function<ContextView, Optional<FencingClaim>> contextClaims,
            Supplier<Optional<FencingClaim>> threadClaims) {
        this.contextClaims = Objects.requireNonNull(contextClaims, "contextClaims");
        this.threadClaims = Objects.requireNonNull(threadClaims, "threadClaims");
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        if (request.headers().getFirst(FenceHeader.NAME) != null) {
            return next.exchange(request);
        }
        return Mono.deferContextual(context -> {
            Optional<FencingClaim> claim = contextClaims.apply(context).or(threadClaims);
            return next.exchange(claim.map(held -> ClientRequest.from(request)
                            .header(FenceHeader.NAME, FenceHeader.format(held))
                            .build())
                    .orElse(request));
        });
    }
}
