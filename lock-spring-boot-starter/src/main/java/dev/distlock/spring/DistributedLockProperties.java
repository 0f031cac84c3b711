package dev.distlock.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/** Settings of the distributed locks, under {@code distributed-lock.*}. */
@ConfigurationProperties(prefix = DistributedLockProperties.PREFIX)
public class DistributedLockProperties implements EnvironmentAware {

    public static final String PREFIX = "distributed-lock";

    /**
     * Lock backend: redis, zookeeper, etcd, jdbc or memory. Unset = the one backend module on the
     * classpath (memory when there is none).
     */
    private LockBackendType backend;

    /** Prepended to every lock key, to keep applications that share a backend apart. */
    private String keyPrefix = "";

    /**
     * Names this application in the holder description stored with each lock on the server
     * (with host, pid and thread), so an operator can tell who holds a key. Default:
     * {@code spring.application.name}.
     */
    private String holderName;

    /** How long @DistributedLock methods wait for their lock unless they say otherwise. */
    private Duration waitTime = Duration.ZERO;

    /** Lease of a held lock; the watchdog renews it every third of this while the owner runs. */
    private Duration leaseTime = Duration.ofSeconds(30);

    private final StartupCheck startupCheck = new StartupCheck();

    private final Web web = new Web();

    private final Redis redis = new Redis();

    private final ZooKeeper zookeeper = new ZooKeeper();

    private final Etcd etcd = new Etcd();

    private final Jdbc jdbc = new Jdbc();

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

    public Redis getRedis() {
        return redis;
    }

    /** The check at start-up that the backend is reachable and usable. */
    public static class StartupCheck {

        /** fail: start-up fails when the backend is not usable; warn: log a WARN and start; off: no check. */
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
        /** A WARN is logged and the application starts; lock calls fail until the backend is back. */
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

    public ZooKeeper getZookeeper() {
        return zookeeper;
    }

    public Etcd getEtcd() {
        return etcd;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    /** Redis backend settings; the connection itself comes from {@code spring.data.redis.*}. */
    public static class Redis {

        /** single: one Redis (or a replicated set) through the application's RedisConnectionFactory; redlock: a majority of independent nodes. */
        private RedisMode mode = RedisMode.SINGLE;

        /** redis://host:port URIs of independent Redis nodes for mode=redlock; at least 3. */
        private List<String> redlockNodes = new ArrayList<>();

        /**
         * Tune the Lettuce client that Spring Boot builds from spring.data.redis.* for outages:
         * commands fail at once while disconnected, reconnects are retried at least every 500ms.
         */
        private boolean tuneClient = true;

        public boolean isTuneClient() {
            return tuneClient;
        }

        public void setTuneClient(boolean tuneClient) {
            this.tuneClient = tuneClient;
        }

        public RedisMode getMode() {
            return mode;
        }

        public void setMode(RedisMode mode) {
            this.mode = mode;
        }

        public List<String> getRedlockNodes() {
            return redlockNodes;
        }

        public void setRedlockNodes(List<String> redlockNodes) {
            this.redlockNodes = redlockNodes;
        }
    }

    /** How the Redis backend reaches Redis. */
    public enum RedisMode {
        /** The application's RedisConnectionFactory ({@code spring.data.redis.*}). */
        SINGLE,
        /** Redlock over {@code distributed-lock.redis.redlock-nodes}. */
        REDLOCK
    }

    /** ZooKeeper backend settings; used to build a CuratorFramework when the application has none. */
    public static class ZooKeeper {

        /** ZooKeeper connect string: host:port pairs separated by commas. */
        private String connectString = "127.0.0.1:2181";

        /** ZooKeeper node under which the lock nodes live. */
        private String rootPath = "/distlock";

        /** ZooKeeper session timeout; a crashed owner's locks free themselves after it. */
        private Duration sessionTimeout = Duration.ofSeconds(30);

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
    }

    /** etcd backend settings; the client settings apply when the application has no jetcd Client bean. */
    public static class Etcd {

        /** etcd endpoints, e.g. http://127.0.0.1:2379 (https:// with TLS). */
        private List<String> endpoints = new ArrayList<>(List.of("http://127.0.0.1:2379"));

        /** etcd key prefix under which the lock keys live. */
        private String namespace = "/distlock/";

        /** etcd user name, when etcd authentication is enabled. */
        private String username;

        /** Password of the etcd user. */
        private String password;

        private final Tls tls = new Tls();

        public List<String> getEndpoints() {
            return endpoints;
        }

        public void setEndpoints(List<String> endpoints) {
            this.endpoints = endpoints;
        }

        public String getNamespace() {
            return namespace;
        }

        public void setNamespace(String namespace) {
            this.namespace = namespace;
        }

        public String getUsername() {
            return username;
        }

        public void setUsername(String username) {
            this.username = username;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }

        public Tls getTls() {
            return tls;
        }

        /** TLS for the etcd client: set at least ca-file to use TLS. */
        public static class Tls {

            /** PEM file of the CA that signed the etcd server certificates. */
            private String caFile;

            /** PEM client certificate, for etcd client-certificate authentication. */
            private String certFile;

            /** PEM PKCS#8 private key of cert-file. */
            private String keyFile;

            public String getCaFile() {
                return caFile;
            }

            public void setCaFile(String caFile) {
                this.caFile = caFile;
            }

            public String getCertFile() {
                return certFile;
            }

            public void setCertFile(String certFile) {
                this.certFile = certFile;
            }

            public String getKeyFile() {
                return keyFile;
            }

            public void setKeyFile(String keyFile) {
                this.keyFile = keyFile;
            }
        }
    }

    /** JDBC backend settings; the connection comes from the application's DataSource. */
    public static class Jdbc {

        /** Name of the lock table. */
        private String tableName = "distributed_lock";

        /**
         * When to create the lock table at start-up if it is missing: always, embedded (only for
         * in-memory databases such as H2), never. An existing table is used as it is.
         */
        private SchemaInitialization initializeSchema = SchemaInitialization.ALWAYS;

        public String getTableName() {
            return tableName;
        }

        public void setTableName(String tableName) {
            this.tableName = tableName;
        }

        public SchemaInitialization getInitializeSchema() {
            return initializeSchema;
        }

        public void setInitializeSchema(SchemaInitialization initializeSchema) {
            this.initializeSchema = initializeSchema;
        }
    }

    /** When the JDBC backend creates its table. */
    public enum SchemaInitialization {
        /** Whenever the table is missing; an existing table is only checked, so no DDL rights are needed then. */
        ALWAYS,
        /** Only for in-memory databases (H2, HSQLDB, Derby in memory). */
        EMBEDDED,
        /** Never: the table is created by migrations (DDL in the lock-jdbc module). */
        NEVER
    }
}
