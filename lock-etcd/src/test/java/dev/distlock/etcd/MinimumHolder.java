package dev.distlock.etcd;

import dev.distlock.core.LockHandle;
import dev.distlock.core.RegistryOptions;
import io.etcd.jetcd.Client;
import java.time.Duration;

/**
 * The holder JVM of {@link EtcdMinimumHoldIT}: takes a key with a watchdog lease, asks to hold it
 * at least a while, prints {@code HELD <token>}, releases it and halts at once, as a crash would.
 * Arguments: endpoints, key, lease time and minimum hold in milliseconds.
 */
public final class MinimumHolder {

    private MinimumHolder() {}

    public static void main(String[] args) throws Exception {
        Client client = EtcdLockRegistry.requireLeader(Client.builder())
                .endpoints(args[0].split(","))
                .build();
        EtcdLockRegistry registry = EtcdLockRegistry.builder(client)
                .options(RegistryOptions.defaults().withLeaseTime(Duration.ofMillis(Long.parseLong(args[2]))))
                .build();
        LockHandle handle = registry.obtain(args[1]).acquire();
        handle.holdAtLeast(Duration.ofMillis(Long.parseLong(args[3])));
        System.out.println("HELD " + handle.token().value());
        System.out.flush();
        handle.close();
        Runtime.getRuntime().halt(0);
    }
}
