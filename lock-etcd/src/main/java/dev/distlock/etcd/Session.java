package dev.distlock.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** One granted session lease (see {@link Sessions}). */
final class Session {
    final long id;
    /** {@link System#nanoTime()} until which etcd surely keeps the lease. */
    volatile long confirmedUntil;

    volatile boolean ended;
    private CompletableFuture<LeaseKeepAliveResponse> keepAlive;

    Session(long id, long confirmedUntil) {
        this.id = id;
        this.confirmedUntil = confirmedUntil;
    }

    synchronized void confirm(long sentAt, long ttlSeconds) {
        long until = sentAt + TimeUnit.SECONDS.toNanos(ttlSeconds);
        if (until - confirmedUntil > 0) {
            confirmedUntil = until;
        }
    }

    boolean isAlive() {
        return !ended && confirmedUntil - System.nanoTime() > 0;
    }

    /** One keep-alive request at a time: a second caller while one is under way shares it. */
    synchronized CompletableFuture<LeaseKeepAliveResponse> keepAliveOnce(Client client, long timeoutNanos) {
        if (keepAlive == null || keepAlive.isDone()) {
            long sentAt = System.nanoTime();
            keepAlive = client.getLeaseClient()
                    .keepAliveOnce(id)
                    .orTimeout(timeoutNanos, TimeUnit.NANOSECONDS)
                    .whenComplete((response, failure) -> {
                        if (failure == null && response.getTTL() > 0) {
                            confirm(sentAt, response.getTTL());
                        }
                    });
        }
        return keepAlive;
    }
}
