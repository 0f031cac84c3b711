package dev.distlock.integration;

import dev.distlock.core.FencingToken;
import dev.distlock.core.leader.LeaderLog;
import dev.distlock.core.leader.LeadershipListener;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;

/**
 * Spring Integration candidates that record their grants and revocations in a {@link LeaderLog}
 * (which detects two leaders at once), each grant with the fencing token of the hold behind it.
 */
final class Candidates {

    final LeaderLog log = new LeaderLog();

    Candidate candidate(String id, String role, IntegrationLockRegistry locks) {
        LeadershipListener listener = log.listener(id);
        AtomicReference<FencingToken> epoch = new AtomicReference<>();
        return new AbstractCandidate(id, role) {
            @Override
            public void onGranted(Context ctx) {
                // Called on the thread that holds the role's lock.
                epoch.set(locks.currentToken(role).orElseThrow());
                listener.granted(epoch.get());
            }

            @Override
            public void onRevoked(Context ctx) {
                listener.revoked(epoch.get());
            }
        };
    }
}
