package dev.distlock.spring;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/** Settings of the distributed locks, under {@code distributed-lock.*}. */
@ConfigurationProperties(prefix = DistributedLockProperties.PREFIX)
public class DistributedLockProperties implements EnvironmentAware {

    public static final String PREFIX = "distributed-lock";

    /**
     * Lock backend, one of redis, zookeeper, etcd, jdbc or memory. Unset means the one backend module on the
     * classpath, or memory when there is none.
     */
    private LockBackendType backend;

    /** Prepended to every lock key, to keep applications that share a backend apart. */
    private String keyPrefix = "";

    /**
     * Names this application in the holder description stored with each lock on the server (with host, pid and
     * thread), so an operator can tell who holds a key. Defaults to {@code spring.application.name}.
     */
    private String holderName;

    /** How long @DistributedLock methods wait for their lock unless they say otherwise. */
    private Duration waitTime = Duration.ZERO;

    /** Lease of a held lock. The watchdog renews it every third of this while the owner runs. */
    private Duration leaseTime = Duration.ofSeconds(30);

    /**
     * How long a waiting writer of a read/write lock lets new readers in before they queue behind it. 0 makes them
     * queue behind it at once. Longer lets more reads through while writes are frequent, and makes each write wait
     * up to that much longer. Unset means 10ms on redis, jdbc and memory, and 0 on zookeeper and etcd.
     */
    private Duration writerGrace;

    /**
     * How long a lock or semaphore call may wait for the server's answer beyond its wait time, on every backend. A
     * zero wait gets all of it. No call outlives its wait time plus this, even with a silent server (contract 8).
     * Raise it where a loaded machine or a slow disk delays answers by more.
     */
    private Duration answerBudget = Duration.ofSeconds(1);

    private final StartupCheck startupCheck = new StartupCheck();

    private final Web web = new Web();

    private final RedisLockProperties redis = new RedisLockProperties();

    private final ZooKeeperLockProperties zookeeper = new ZooKeeperLockProperties();

    private final EtcdLockProperties etcd = new EtcdLockProperties();

    private final JdbcLockProperties jdbc = new JdbcLockProperties();

    public LockBackendType getBackend() {
        return backend;
    }

    public void setBackend(LockBackendType backend) {
        this.backend = backend;
    }

    public String getHolderName() {
        return holderName != null ? holderName : applicationName;
    }

    /** {@code spring.application.name}, the holder name unless one is set. */
    private String applicationName;

    @Override
    public void setEnvironment(Environment environment) {
        this.applicationName = environment.getProperty("spring.application.name");
    }

    public void setHolderName(String holderName) {
        this.holderName = holderName;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getWaitTime() {
        return waitTime;
    }

    public void setWaitTime(Duration waitTime) {
        this.waitTime = waitTime;
    }

    public Duration getWriterGrace() {
        return writerGrace;
    }

    public void setWriterGrace(Duration writerGrace) {
        this.writerGrace = writerGrace;
    }

    public Duration getAnswerBudget() {
        return answerBudget;
    }

    public void setAnswerBudget(Duration answerBudget) {
        this.answerBudget = answerBudget;
    }

    public Duration getLeaseTime() {
        return leaseTime;
    }

    public void setLeaseTime(Duration leaseTime) {
        this.leaseTime = leaseTime;
    }

    public StartupCheck getStartupCheck() {
        return startupCheck;
    }

    public Web getWeb() {
        return web;
    }

    public RedisLockProperties getRedis() {
        return redis;
    }

    /** The check at start-up that the backend is reachable and usable. */
    public static class StartupCheck {

        /** FAIL stops start-up when the backend is not usable, WARN logs a warning and starts, OFF skips the check. */
        private StartupCheckMode mode = StartupCheckMode.FAIL;

        /** How long the check may take. */
        private Duration timeout = Duration.ofSeconds(5);

        public StartupCheckMode getMode() {
            return mode;
        }

        public void setMode(StartupCheckMode mode) {
            this.mode = mode;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** What the start-up check does when the backend is not usable. */
    public enum StartupCheckMode {
        /** Start-up fails with a failure report. */
        FAIL,
        /** A WARN is logged and the application starts. Lock calls fail until the backend is back. */
        WARN,
        /** No check. */
        OFF
    }

    /** Spring MVC and WebFlux integration. */
    public static class Web {

        /** Answer LockNotAcquiredException with 423 Locked and an RFC 9457 problem detail. */
        private boolean problemDetails = true;

        public boolean isProblemDetails() {
            return problemDetails;
        }

        public void setProblemDetails(boolean problemDetails) {
            this.problemDetails = problemDetails;
        }
    }

    public ZooKeeperLockProperties getZookeeper() {
        return zookeeper;
    }

    public EtcdLockProperties getEtcd() {
        return etcd;
    }

    public JdbcLockProperties getJdbc() {
        return jdbc;
    }
}
