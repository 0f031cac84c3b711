package dev.distlock.fencingharness;

import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.fencing.http.FenceHeader;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * The ledger behind a service's HTTP endpoints (LedgerHttpServer): fenced calls send the
 * Distlock-Fence header to {@code /fenced/...}, whose GET admits the claim before it answers;
 * unfenced ones use {@code /open/...}.
 */
final class HttpLedger implements Ledger {

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;
    private final String name;

    HttpLedger(String base, String name) {
        this.base = base;
        this.name = name;
    }

    @Override
    public boolean append(FencingClaim claim, String op, Runnable afterRead) throws IOException, InterruptedException {
        String path = base + (claim == null ? "/open/" : "/fenced/") + name;
        HttpResponse<String> read = http.send(request(path, claim).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (read.statusCode() == 409) {
            return false;
        }
        check(read);
        afterRead.run();
        HttpResponse<String> written = http.send(
                request(path, claim)
                        .PUT(HttpRequest.BodyPublishers.ofString(Ledger.join(read.body(), op)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (written.statusCode() == 409) {
            return false;
        }
        check(written);
        return true;
    }

    @Override
    public List<String> entries() throws IOException, InterruptedException {
        HttpResponse<String> read =
                http.send(request(base + "/open/" + name, null).GET().build(), HttpResponse.BodyHandlers.ofString());
        check(read);
        return Ledger.split(read.body());
    }

    private static HttpRequest.Builder request(String uri, FencingClaim claim) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(20));
        if (claim != null) {
            request.header(FenceHeader.NAME, FenceHeader.format(claim));
        }
        return request;
    }

    private static void check(HttpResponse<String> response) {
        if (response.statusCode() != 200) {
            throw new IllegalStateException("Ledger service answered " + response.statusCode() + " to " + response.uri()
                    + ": " + response.body());
        }
    }
}
