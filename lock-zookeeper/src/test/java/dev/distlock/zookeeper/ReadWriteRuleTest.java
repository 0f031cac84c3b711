package dev.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The read/write rules on waiting lines as {@link LockPaths#queue} orders them. */
class ReadWriteRuleTest {

    private static final String R1 = "_c_aaaa-read-0000000001";
    private static final String W2 = "_c_bbbb-write-0000000002";
    private static final String R3 = "_c_cccc-read-0000000003";
    private static final String W4 = "_c_dddd-write-0000000004";
    private static final String R5 = "_c_eeee-read-0000000005";
    private static final String D6 = "_c_ffff-downgrade-0000000006";

    private static final List<String> LINE = LockPaths.queue(List.of(D6, R5, W4, R3, W2, R1));

    @Test
    void readersGoUntilTheFirstWriteNodeAndWatchTheNearestWriteAheadOfThem() {
        assertThat(LINE).containsExactly(R1, W2, R3, W4, R5, D6);
        assertThat(ReadWriteRule.READ.decide(LINE, 0).holds()).isTrue();
        assertThat(ReadWriteRule.READ.decide(LINE, 2)).isEqualTo(new QueueRule.Verdict(false, W2));
        assertThat(ReadWriteRule.READ.decide(LINE, 4)).isEqualTo(new QueueRule.Verdict(false, W4));
        assertThat(ReadWriteRule.READ.decide(List.of(R1, R3, D6, R5), 3).holds())
                .as("downgrade nodes hold no reader back")
                .isTrue();
    }

    @Test
    void readersWatchOnlyTheWriteNodesAheadOfThem() {
        assertThat(ReadWriteRule.READ.dependsOn(W2)).isTrue();
        assertThat(ReadWriteRule.READ.dependsOn(R3))
                .as("a reader ahead never holds a reader back")
                .isFalse();
        assertThat(ReadWriteRule.READ.dependsOn(D6)).isFalse();
        assertThat(QueueRule.MUTEX.dependsOn(R3)).isTrue();
    }

    @Test
    void writersGoWhenFirstAndNoDowngradeNodeIsLeft() {
        assertThat(ReadWriteRule.WRITE.decide(LINE, 1)).isEqualTo(new QueueRule.Verdict(false, R1));
        assertThat(ReadWriteRule.WRITE.decide(List.of(W4, R5, D6), 0))
                .as("a downgrade behind the first writer still holds")
                .isEqualTo(new QueueRule.Verdict(false, D6));
        assertThat(ReadWriteRule.WRITE.decide(List.of(W4, R5), 0).holds()).isTrue();
        assertThat(ReadWriteRule.WRITE.onlyNodesAheadMatter()).isFalse();
        assertThat(ReadWriteRule.READ.onlyNodesAheadMatter()).isTrue();
    }

    @Test
    void downgradeHoldsWhileItsWriteNodeIsThereWithThatWritesTokenAndGivesUpOtherwise() {
        FencingToken writeToken = FencingToken.of(42);
        QueueRule downgrade = ReadWriteRule.downgradeOf(
                new ZooKeeperLease("k", "/distlock/k:rw/" + W2, writeToken, 7, System.nanoTime()));
        assertThat(downgrade.nodeName()).isEqualTo(LockPaths.DOWNGRADE_NODE);
        assertThat(downgrade.decide(LINE, 5).holds())
                .as("even behind the waiting writer W4")
                .isTrue();
        assertThat(downgrade.token(FencingToken.of(99))).isEqualTo(writeToken);
        assertThat(downgrade.decide(List.of(R3, W4, R5, D6), 3))
                .as("its write node is gone: waiting cannot help")
                .isEqualTo(QueueRule.Verdict.GIVE_UP);
    }

    @Test
    void readWriteLineLivesBesideThePlainLockLine() {
        LockPaths paths = new LockPaths("/distlock");
        assertThat(paths.readWriteKeyPath("a/b")).isEqualTo("/distlock/a%2Fb:rw");
        assertThat(paths.keyPath("a/b:rw"))
                .as("no plain key's node is a read/write node")
                .isEqualTo("/distlock/a%2Fb%3Arw");
    }
}
