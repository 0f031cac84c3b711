package dev.distlock.leadertests;

import dev.distlock.core.FencingToken;
import dev.distlock.core.leader.CampaignOptions;
import dev.distlock.core.leader.Leadership;
import dev.distlock.core.leader.LeadershipListener;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A candidate in a JVM of its own, for tests that kill or stop the leader's process. Arguments:
 * the name, the lease in ms, then the backend words of {@link BackendClients}. It prints
 * {@code GRANTED <epoch>} and {@code REVOKED <epoch>}, {@code LEADING <epoch>} every few ms while
 * {@link Leadership#isLeader()} answers true, and, the first time its clock jumps by more than a
 * second (it was stopped and continued), {@code RESUMED <isLeader()>} before anything else. A stop
 * that lands between asking and printing makes the printed {@code LEADING} an answer from before
 * the stop: it is followed by {@value ChildJvm#STOPPED_WHILE_ASKING}, then {@code RESUMED} with a fresh answer.
 */
public final class CandidateProcess {

    private static final long JUMP_NANOS = TimeUnit.SECONDS.toNanos(1);

    private CandidateProcess() {}

    public static void main(String[] args) throws Exception {
        String name = args[0];
        Duration lease = Duration.ofMillis(Long.parseLong(args[1]));
        List<String> spec = Arrays.asList(args).subList(2, args.length);
        BackendClients clients = new BackendClients(spec, lease);
        Leadership leadership = Leadership.campaign(
                clients.newRegistry(),
                name,
                new LeadershipListener() {
                    @Override
                    public void granted(FencingToken epoch) {
                        say("GRANTED " + epoch);
                    }

                    @Override
                    public void revoked(FencingToken epoch) {
                        say("REVOKED " + epoch);
                    }
                },
                CampaignOptions.defaults().withCheckInterval(Duration.ofMillis(20)));
        say("CAMPAIGNING");
        long last = System.nanoTime();
        boolean resumed = false;
        while (true) {
            long asked = System.nanoTime();
            if (!resumed && asked - last > JUMP_NANOS) {
                resumed = true;
                say("RESUMED " + leadership.isLeader());
            }
            leadership.epoch().ifPresent(epoch -> say("LEADING " + epoch));
            long said = System.nanoTime();
            if (!resumed && said - asked > JUMP_NANOS) {
                resumed = true;
                say(ChildJvm.STOPPED_WHILE_ASKING);
                say("RESUMED " + leadership.isLeader());
            }
            last = said;
            Thread.sleep(5);
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
