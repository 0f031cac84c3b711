package dev.distlock.zookeeper;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Withdraws in the background lock nodes that a create whose answer was lost may have made, so that they cannot block a
 * key while their session lives.
 */
final class NodeWithdrawals {

    /** Logged under {@link ZooKeeperCalls}, as before this had a class of its own. */
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperCalls.class);

    /** How many times {@link #withdrawLater} tries, a second apart. */
    private static final int WITHDRAW_TRIES = 600;

    private final CuratorFramework client;
    private final Consumer<String> delete;

    /** @param delete deletes one node by its path, not waiting for the answer */
    NodeWithdrawals(CuratorFramework client, Consumer<String> delete) {
        this.client = client;
        this.delete = delete;
    }

    /** Tried again every second while ZooKeeper is unreachable, for ten minutes at most. */
    void withdrawLater(String keyPath, String nodeName) {
        withdrawLater(keyPath, nodeName, WITHDRAW_TRIES);
    }

    private void withdrawLater(String keyPath, String nodeName, int triesLeft) {
        if (triesLeft <= 0 || client.getState() != CuratorFrameworkState.STARTED) {
            return;
        }
        BackgroundCallback found = (c, event) -> {
            int rc = event.getResultCode();
            if (rc == KeeperException.Code.OK.intValue()) {
                for (String child : event.getChildren()) {
                    if (LockPaths.isNamed(child, nodeName) && LockPaths.sequenceOf(child) >= 0) {
                        delete.accept(ZKPaths.makePath(keyPath, child));
                    }
                }
            } else if (rc != KeeperException.Code.NONODE.intValue()) {
                Later.EXECUTOR.schedule(() -> withdrawLater(keyPath, nodeName, triesLeft - 1), 1, TimeUnit.SECONDS);
            }
        };
        try {
            client.getChildren().inBackground(found).forPath(keyPath);
        } catch (Exception e) {
            log.debug("Could not send the read of {} to remove an orphaned lock node", keyPath, e);
        }
    }

    /** The thread that schedules further tries, created on first use. */
    private static final class Later {
        static final ScheduledExecutorService EXECUTOR = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "distlock-zookeeper-withdrawals");
            thread.setDaemon(true);
            return thread;
        });
    }
}
