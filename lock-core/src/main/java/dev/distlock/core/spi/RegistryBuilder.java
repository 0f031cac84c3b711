package dev.distlock.core.spi;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.Objects;

/**
 * The settings every registry builder shares. A backend's builder extends it and adds its own.
 *
 * @param <B> the backend's builder, returned by every setter
 * @param <R> the registry it builds
 */
public abstract class RegistryBuilder<B extends RegistryBuilder<B, R>, R extends LockRegistry> {

    private RegistryOptions options = RegistryOptions.defaults();

    protected RegistryBuilder() {}

    /** All shared settings at once. Replaces earlier {@link #leaseTime} and {@link #keyPrefix} calls. */
    public B options(RegistryOptions options) {
        this.options = Objects.requireNonNull(options, "options");
        return self();
    }

    /** Lease of holds renewed by the watchdog, default 30s. They are renewed every third of it. */
    public B leaseTime(Duration leaseTime) {
        options = options.withLeaseTime(leaseTime);
        return self();
    }

    /** Prepended to every key, default none. Keeps applications that share a server apart. */
    public B keyPrefix(String keyPrefix) {
        options = options.withKeyPrefix(keyPrefix);
        return self();
    }

    /**
     * How long a waiting writer of a read/write lock lets new readers in before they queue behind it. Zero makes them
     * queue behind it at once. The default is {@link RegistryOptions#DEFAULT_WRITER_GRACE} on Redis, JDBC and memory,
     * and zero on ZooKeeper and etcd ({@code docs/read-write-locks.md}).
     */
    public B writerGrace(Duration writerGrace) {
        options = options.withWriterGrace(writerGrace);
        return self();
    }

    protected final RegistryOptions options() {
        return options;
    }

    public abstract R build();

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
