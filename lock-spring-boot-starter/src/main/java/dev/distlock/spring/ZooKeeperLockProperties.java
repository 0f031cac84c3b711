package dev.distlock.spring;

import java.time.Duration;

/** ZooKeeper backend settings, used to build a CuratorFramework when the application has none. */
public class ZooKeeperLockProperties {

    /** ZooKeeper connect string, {@code host:port} pairs separated by commas. */
    private String connectString = "127.0.0.1:2181";

    /** ZooKeeper node under which the lock nodes live. */
    private String rootPath = "/distlock";

    /** ZooKeeper session timeout. A crashed owner's locks free themselves after it. */
    private Duration sessionTimeout = Duration.ofSeconds(30);

    /**
     * At shutdown, the longest the context's close waits for holds released before their minimum (holdAtLeast) to
     * end, before it closes the Curator client built from these properties. Closing it ends the session, which frees
     * them. Holds that outlast this wait keep the client open.
     */
    private Duration shutdownLingerLimit = Duration.ofSeconds(10);

    public String getConnectString() {
        return connectString;
    }

    public void setConnectString(String connectString) {
        this.connectString = connectString;
    }

    public String getRootPath() {
        return rootPath;
    }

    public void setRootPath(String rootPath) {
        this.rootPath = rootPath;
    }

    public Duration getSessionTimeout() {
        return sessionTimeout;
    }

    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    public Duration getShutdownLingerLimit() {
        return shutdownLingerLimit;
    }

    public void setShutdownLingerLimit(Duration shutdownLingerLimit) {
        this.shutdownLingerLimit = shutdownLingerLimit;
    }
}
