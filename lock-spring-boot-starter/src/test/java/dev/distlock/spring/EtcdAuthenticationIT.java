package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.distlock.contract.servers.EtcdProcess;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code distributed-lock.etcd.username/password} reach jetcd: an etcd with authentication enabled. */
class EtcdAuthenticationIT {

    private static final String PASSWORD = "s3cret-root";
    private static final String NAMESPACE = "/auth-it/";

    private static ManagedProcess etcd;
    private static String clientUrl;

    private static ApplicationContextRunner runnerWithPassword(String password) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
                .withPropertyValues(
                        "distributed-lock.backend=etcd",
                        "distributed-lock.etcd.endpoints=" + clientUrl,
                        "distributed-lock.etcd.namespace=" + NAMESPACE,
                        "distributed-lock.etcd.username=root",
                        "distributed-lock.etcd.password=" + password);
    }

    @BeforeAll
    static void startEtcdWithAuthentication(@TempDir Path dir) throws Exception {
        EtcdProcess started = EtcdProcess.start("etcd-auth", dir);
        etcd = started.process();
        clientUrl = started.clientUrl();
        // etcd refuses to enable authentication until a root user with the root role exists.
        try (Client admin = Client.builder().endpoints(clientUrl).build()) {
            ByteSequence root = bytes("root");
            admin.getAuthClient().userAdd(root, bytes(PASSWORD)).get(10, TimeUnit.SECONDS);
            admin.getAuthClient().userGrantRole(root, root).get(10, TimeUnit.SECONDS);
            admin.getAuthClient().authEnable().get(10, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.kill();
        }
    }

    @Test
    void configuredCredentialsAcquireAndReleaseALock() {
        runnerWithPassword(PASSWORD).run(context -> {
            FencedLock lock = context.getBean(LockRegistry.class).obtain("orders/42");
            // Everything on one thread: the hold belongs to the thread that acquired it.
            assertTimeoutPreemptively(Duration.ofSeconds(15), () -> {
                Optional<LockHandle> handle = lock.tryAcquire(Duration.ofSeconds(5));
                assertThat(handle).isPresent();
                assertThat(handle.get().token().value()).isPositive();
                assertThat(lock.isHeldByCurrentThread()).isTrue();
                assertThat(lockKeysInEtcd()).isEqualTo(1);
                handle.get().close();
                assertThat(lock.isHeldByCurrentThread()).isFalse();
                assertThat(lockKeysInEtcd()).isZero();
            });
        });
    }

    @Test
    void wrongPasswordFailsStartUpWithAFailureReport() {
        runnerWithPassword("wrong")
                .run(context -> assertThat(StartupFailures.analysis(context))
                        .contains("The etcd lock backend is not usable")
                        .contains(clientUrl)
                        .contains("authentication failed")
                        .contains("Action: Check that etcd runs")
                        .contains("distributed-lock.etcd.endpoints, username, password")
                        .contains("distributed-lock.startup-check.mode=warn"));
    }

    @Test
    void wrongPasswordFailsTheAcquisitionWithAnAuthenticationError() {
        // Past the start-up check, as with startup-check.mode=warn while etcd refuses the credentials.
        runnerWithPassword("wrong")
                .withPropertyValues("distributed-lock.startup-check.mode=off")
                .run(context -> {
                    FencedLock lock = context.getBean(LockRegistry.class).obtain("orders/43");
                    LockBackendException failure = assertTimeoutPreemptively(
                            Duration.ofSeconds(10),
                            () -> catchThrowableOfType(
                                    LockBackendException.class, () -> lock.tryAcquire(Duration.ofSeconds(2))));
                    assertThat(failure)
                            .as("acquiring with a wrong password")
                            .isNotNull()
                            .hasMessageStartingWith("etcd backend at " + clientUrl + " failed for lock 'orders/43'")
                            .hasMessageContaining("UNAUTHENTICATED")
                            .hasMessageContaining("authentication failed")
                            .hasRootCauseMessage(
                                    "INVALID_ARGUMENT: etcdserver: authentication failed, invalid user ID or password");
                    assertThat(lock.isHeldByCurrentThread()).isFalse();
                });
    }

    /** How many keys the registry keeps in etcd, read with the root credentials. */
    private static long lockKeysInEtcd() throws Exception {
        try (Client root = Client.builder()
                .endpoints(clientUrl)
                .user(bytes("root"))
                .password(bytes(PASSWORD))
                .build()) {
            return root.getKVClient()
                    .get(
                            bytes(NAMESPACE),
                            GetOption.builder()
                                    .isPrefix(true)
                                    .withCountOnly(true)
                                    .build())
                    .get(10, TimeUnit.SECONDS)
                    .getCount();
        }
    }

    private static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }
}
