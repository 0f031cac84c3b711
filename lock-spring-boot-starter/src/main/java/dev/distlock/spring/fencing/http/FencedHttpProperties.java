package dev.distlock.spring.fencing.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** HTTP fencing, with the header clients send under a hold and the endpoints that check it. */
@ConfigurationProperties(prefix = FencedHttpProperties.PREFIX)
public class FencedHttpProperties {

    public static final String PREFIX = "distributed-lock.fencing.http";

    private final Client client = new Client();
    private final Server server = new Server();

    public Client getClient() {
        return client;
    }

    public Server getServer() {
        return server;
    }

    /** The Distlock-Fence header on RestClient, RestTemplate and WebClient calls made under a hold. */
    public static class Client {

        /** Whether the auto-configured HTTP clients send the hold's Distlock-Fence header. */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** Fenced endpoints of a Spring MVC application. */
    public static class Server {

        /** Whether @FencedEndpoint handlers and the paths below are checked. */
        private boolean enabled = true;

        /**
         * Bean name of the FenceStore that admits claims. Unset means the only FenceStore bean, or an in-memory store
         * (one instance only) when there is none.
         */
        private String store;

        /** Paths fenced without an annotation, a pattern ({@code /orders/{id}/**}) each with a resource. */
        private List<Path> paths = new ArrayList<>();

        /** How long a request waits for another fenced request to the same resource to end before a 503. */
        private Duration wait = Duration.ofSeconds(10);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getStore() {
            return store;
        }

        public void setStore(String store) {
            this.store = store;
        }

        public List<Path> getPaths() {
            return paths;
        }

        public void setPaths(List<Path> paths) {
            this.paths = paths;
        }

        public Duration getWait() {
            return wait;
        }

        public void setWait(Duration wait) {
            this.wait = wait;
        }
    }

    /** A fenced path pattern and the resource it writes. */
    public static class Path {

        /** Spring path pattern, e.g. /orders/{id}/**. */
        private String pattern;

        /** Resource name. {@code {name}} is replaced by the pattern's variable of that name. */
        private String resource;

        public String getPattern() {
            return pattern;
        }

        public void setPattern(String pattern) {
            this.pattern = pattern;
        }

        public String getResource() {
            return resource;
        }

        public void setResource(String resource) {
            this.resource = resource;
        }
    }
}
