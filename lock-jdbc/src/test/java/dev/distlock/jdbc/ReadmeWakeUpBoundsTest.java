package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's bounds on how soon a JDBC waiter sees an expired lease are the poll back-offs' caps. */
class ReadmeWakeUpBoundsTest {

    @Test
    void readmeBoundsAnExpiryByThePollCaps() throws Exception {
        String readme =
                Files.readString(Path.of("").toAbsolutePath().getParent().resolve("README.md"));
        int section = readme.indexOf("**When a lease expires**");
        assertThat(section).as("the README's section on expiries").isNotNegative();
        String expiries = readme.substring(section).replaceAll("\\s+", " ");

        long listening = PostgresNotifications.SAFETY_NET.max().toMillis();
        long polling = ReleaseSignals.POLLING.max().toMillis();
        assertThat(expiries)
                .contains("next poll, up to " + listening + " ms later")
                .contains("at the next poll, within " + polling + " ms");
    }
}
