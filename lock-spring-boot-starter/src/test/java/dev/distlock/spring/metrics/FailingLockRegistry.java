package dev.distlock.spring.metrics;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;

/** A registry whose backend fails every call, as an unreachable server would. */
public final class FailingLockRegistry extends LockRegistrySupport {

    public FailingLockRegistry(String keyPrefix) {
        super(new FailingBackend(), RegistryOptions.defaults().withKeyPrefix(keyPrefix));
    }

    private static final class FailingBackend implements LockBackend<BackendLease> {

        @Override
        public String name() {
            return "failing";
        }

        @Override
        public String address() {
            return "nowhere:1";
        }

        @Override
        public int maxKeyLength() {
            return 1000;
        }

        @Override
        public Optional<BackendLease> tryAcquire(LockRequest request) {
            throw unreachable(request.key());
        }

        @Override
        public boolean renew(BackendLease lease, Duration leaseTime) {
            throw unreachable(null);
        }

        @Override
        public boolean release(BackendLease lease) {
            throw unreachable(null);
        }

        @Override
        public void verify(Duration timeout) {
            throw unreachable(null);
        }

        private static LockBackendException unreachable(String key) {
            return new LockBackendException("failing", "nowhere:1", key, "connection refused; start the server");
        }
    }
}
