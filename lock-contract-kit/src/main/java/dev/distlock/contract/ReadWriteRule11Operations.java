package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockObserver;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Read/write locks (contract rule 13) under rule 11, operations. Holds are listed and observed with their side. */
abstract class ReadWriteRule11Operations extends ReadWriteGroup {

    ReadWriteRule11Operations(ReadWriteLockContract contract) {
        super(contract);
    }

    @Test
    void readAndWriteHoldsAreListedAndObservedWithTheirSide() throws Exception {
        String key = key();
        List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
        registryA.addObserver(new LockObserver() {
            @Override
            public void holdStarted(HoldInfo hold) {
                events.add("start " + hold.kind() + " " + hold.key());
            }

            @Override
            public void holdEnded(HoldInfo hold) {
                events.add("end " + hold.kind() + " " + hold.key());
            }
        });
        try (LockHandle write = write(registryA, key).acquire();
                LockHandle read = read(registryA, key).acquire();
                LockHandle plain = registryA.obtain(key).acquire()) {
            assertThat(registryA.holds())
                    .filteredOn(hold -> hold.key().equals(key))
                    .extracting(HoldInfo::kind, hold -> hold.token().value())
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple(
                                    HoldInfo.Kind.WRITE, write.token().value()),
                            org.assertj.core.groups.Tuple.tuple(
                                    HoldInfo.Kind.READ, read.token().value()),
                            org.assertj.core.groups.Tuple.tuple(
                                    HoldInfo.Kind.EXCLUSIVE, plain.token().value()));
            assertThat(registryB.holds()).noneMatch(hold -> hold.key().equals(key));
        }
        assertThat(registryA.holds()).noneMatch(hold -> hold.key().equals(key));
        assertThat(events)
                .containsExactlyInAnyOrder(
                        "start WRITE " + key,
                        "start READ " + key,
                        "start EXCLUSIVE " + key,
                        "end WRITE " + key,
                        "end READ " + key,
                        "end EXCLUSIVE " + key);
    }
}
