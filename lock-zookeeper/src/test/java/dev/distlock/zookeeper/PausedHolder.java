package dev.distlock.zookeeper;

import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

/**
 * The holder JVM of {@link ZooKeeperPausedHolderIT}: takes a lock ({@code args[2]}: {@code
 * watchdog}, {@code fixed} for a fixed lease of a minute, {@code read-fixed} for a read lock with
 * one), prints {@code HELD <token>}, then watches its own clock. The first time it sees a jump of
 * more than a second (it was stopped and continued), it prints {@code RESUMED <isValid()>} at once
 * and exits.
 */
public final class PausedHolder {

    private static final long PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private PausedHolder() {}

    public static void main(String[] args) throws Exception {
        String connectString = args[0];
        String key = args[1];
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(CuratorClients.SESSION_TIMEOUT_MS)
                .connectionTimeoutMs(CuratorClients.CONNECTION_TIMEOUT_MS)
                .retryPolicy(new RetryNTimes(3, 100))
                .build();
        client.start();
        if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
            System.out.println("NO-CONNECTION");
            System.exit(2);
        }
        ZooKeeperLockRegistry registry = ZooKeeperLockRegistry.builder(client).build();
        String kind = args.length > 2 ? args[2] : "watchdog";
        Duration wait = Duration.ofSeconds(20);
        Duration fixedLease = Duration.ofMinutes(1);
        LockHandle handle = switch (kind) {
            case "watchdog" -> registry.obtain(key).acquire();
            case "fixed" -> registry.obtain(key).tryAcquire(wait, fixedLease).orElseThrow();
            case "read-fixed" ->
                registry.readWriteLock(key)
                        .readLock()
                        .tryAcquire(wait, fixedLease)
                        .orElseThrow();
            default -> throw new IllegalArgumentException("unknown kind of hold: " + kind);
        };
        System.out.println("HELD " + handle.token().value());
        System.out.flush();
        long last = System.nanoTime();
        while (true) {
            Thread.sleep(1);
            long now = System.nanoTime();
            if (now - last > PAUSE_NANOS) {
                boolean valid = handle.isValid();
                System.out.println("RESUMED " + valid);
                System.out.flush();
                Runtime.getRuntime().halt(0);
            }
            last = now;
        }
    }
}
