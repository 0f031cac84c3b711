package dev.distlock.core.leader;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHolder;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Who leads a name, as the server has it recorded ({@link Leadership#leaderOf}, {@link Leadership#observe}).
 *
 * @param name the name led
 * @param holder the leader's readable description (application, host, pid, thread), without its value
 * @param epoch the fencing token of the leader's hold, the epoch its own {@link Leadership#epoch()} reports
 * @param value what the leader published with its term ({@link CampaignOptions#withValue}), empty when nothing
 * @param leaseLeft how long the server keeps the term without renewal when it was read. Empty when the lease is a
 *     session (ZooKeeper) or the backend cannot tell
 */
public record Leader(
        String name, String holder, FencingToken epoch, Optional<String> value, Optional<Duration> leaseLeft) {

    public Leader {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(epoch, "epoch");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(leaseLeft, "leaseLeft");
        holder = holder == null ? "" : holder;
    }

    /** The leader of {@code name} that holds {@code held}. Its note is the value. */
    static Leader of(String name, LockHolder held) {
        Optional<String> value = held.note();
        String text = held.holder() == null ? "" : held.holder();
        String holder = value.isPresent() ? text.substring(0, text.lastIndexOf(LockHolder.NOTE_MARKER)) : text;
        return new Leader(name, holder, held.token(), value, held.leaseLeft());
    }
}
