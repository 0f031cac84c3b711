package dev.distlock.core.spi;

/**
 * Who holds a lease on the server: one hold of one thread of one registry. The registry part
 * is random (128 bits), so owners are unique across JVMs and hosts; the hold part makes a
 * stale release from an earlier hold of the same thread unable to touch a later one.
 */
public record OwnerId(String registry, long thread, long hold) {

    /** The owner as stored on the server, at most 60 ASCII characters. */
    public String value() {
        return registry + ':' + thread + ':' + hold;
    }

    @Override
    public String toString() {
        return value();
    }
}
