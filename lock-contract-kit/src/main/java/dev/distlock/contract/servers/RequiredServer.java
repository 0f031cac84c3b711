package dev.distlock.contract.servers;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test does when the server it needs is missing. With {@code CI=true} it fails, so a
 * CI run never passes by skipping. On a developer's machine it is skipped with the reason.
 */
public final class RequiredServer {

    private RequiredServer() {}

    public static boolean isCi() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }

    /** Fails (CI) or aborts (elsewhere) the test with {@code reason} unless {@code available}. */
    public static void require(boolean available, String server, String reason) {
        if (available) {
            return;
        }
        String message = server + " is not available: " + reason
                + ". Run the README's test command, which installs and starts it.";
        if (isCi()) {
            Assertions.fail(message);
        }
        Assumptions.abort(message);
    }
}
