package dev.distlock.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

class WriterGraceTest {

    @Test
    void zeroGraceIsClosedAtOnceAndCutsNoPause() {
        WriterGrace grace = WriterGrace.start(Duration.ZERO);
        assertThat(grace.isOpen()).isFalse();
        assertThat(grace.cap(5_000_000_000L)).isEqualTo(5_000_000_000L);
    }

    @Test
    void openGraceCutsPausesToWhatIsLeftOfIt() {
        WriterGrace grace = WriterGrace.start(Duration.ofHours(1));
        assertThat(grace.isOpen()).isTrue();
        assertThat(grace.cap(1_000L)).isEqualTo(1_000L);
        assertThat(grace.cap(Long.MAX_VALUE))
                .isLessThanOrEqualTo(Duration.ofHours(1).toNanos());
    }

    @Test
    void graceBeyondWhatNanosecondsHoldStaysOpen() {
        WriterGrace grace = WriterGrace.start(ChronoUnit.FOREVER.getDuration());
        assertThat(grace.isOpen()).isTrue();
        assertThat(grace.cap(1L)).isEqualTo(1L);
    }

    @Test
    void unsetGraceIsTheBackendsDefaultAndASetOneWins() {
        RegistryOptions defaults = RegistryOptions.defaults();
        assertThat(defaults.writerGrace()).isNull();
        assertThat(defaults.writerGraceOr(Duration.ZERO)).isZero();
        assertThat(defaults.writerGraceOr(RegistryOptions.DEFAULT_WRITER_GRACE)).isEqualTo(Duration.ofMillis(10));
        RegistryOptions set = defaults.withWriterGrace(Duration.ofMillis(25)).withLeaseTime(Duration.ofSeconds(5));
        assertThat(set.writerGraceOr(Duration.ZERO)).isEqualTo(Duration.ofMillis(25));
    }

    @Test
    void negativeGraceIsRefused() {
        assertThatThrownBy(() -> RegistryOptions.defaults().withWriterGrace(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("writerGrace must be zero or positive");
    }
}
