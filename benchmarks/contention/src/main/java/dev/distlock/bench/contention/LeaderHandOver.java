package dev.distlock.bench.contention;

import dev.distlock.bench.Benchmark;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.leader.CampaignOptions;
import dev.distlock.core.leader.Leadership;
import dev.distlock.core.leader.LeadershipListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Leader hand-over on resign: two candidates on two registries (standing for two JVMs) campaign for
 * one name; the leader resigns, and the time from its {@code resign()} call to the other
 * candidate's {@code granted} callback is one sample. The candidates take turns leading.
 */
final class LeaderHandOver {

    /** Hand-overs not counted: the first wait of a registry opens its subscriptions, and the first runs are interpreted. */
    static final int WARM_UP = 10;

    static final int SAMPLES = 100;

    /** Between hand-overs: the resigned candidate campaigns again meanwhile. */
    static final long PAUSE_MILLIS = 150;

    /** Long enough that only the waiting candidate can be granted after a resignation. */
    private static final CampaignOptions OPTIONS =
            CampaignOptions.defaults().withCheckInterval(Duration.ofMillis(20)).withRejoinDelay(Duration.ofMillis(50));

    /** The samples of one backend, in microseconds, sorted once. */
    record Result(String backend, long[] micros) {

        Result(String backend, List<Long> samples) {
            this(backend, samples.stream().mapToLong(Long::longValue).sorted().toArray());
        }

        double percentile(double p) {
            return Benchmark.percentile(micros, p);
        }
    }

    private LeaderHandOver() {}

    static Result measure(String backend, LockRegistry first, LockRegistry second) throws Exception {
        String name = "bench-leader-" + UUID.randomUUID().toString().substring(0, 8);
        LinkedBlockingQueue<Granted> grants = new LinkedBlockingQueue<>();
        List<Long> micros = new ArrayList<>();
        try (Leadership a = Leadership.campaign(first, name, listener("a", grants), OPTIONS);
                Leadership b = Leadership.campaign(second, name, listener("b", grants), OPTIONS)) {
            Granted leader = next(grants);
            for (int i = 0; i < WARM_UP + SAMPLES; i++) {
                Thread.sleep(PAUSE_MILLIS);
                long resignedAt = System.nanoTime();
                (leader.candidate().equals("a") ? a : b).resign();
                Granted next = next(grants);
                if (next.candidate().equals(leader.candidate())) {
                    throw new IllegalStateException(backend + ": the resigned candidate was granted again");
                }
                if (i >= WARM_UP) {
                    micros.add(TimeUnit.NANOSECONDS.toMicros(next.atNanos() - resignedAt));
                }
                leader = next;
            }
        }
        return new Result(backend, micros);
    }

    private record Granted(String candidate, long atNanos) {}

    private static Granted next(LinkedBlockingQueue<Granted> grants) throws InterruptedException {
        Granted granted = grants.poll(30, TimeUnit.SECONDS);
        if (granted == null) {
            throw new IllegalStateException("no candidate was granted within 30 s");
        }
        return granted;
    }

    private static LeadershipListener listener(String candidate, LinkedBlockingQueue<Granted> grants) {
        return new LeadershipListener() {
            @Override
            public void granted(FencingToken epoch) {
                grants.add(new Granted(candidate, System.nanoTime()));
            }

            @Override
            public void revoked(FencingToken epoch) {}
        };
    }
}
