package dev.distlock.core;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** Durations in messages as users write them in properties and annotations: {@code 50ms}, {@code 2s}, {@code 5m}. */
public final class DurationText {

    private record Unit(ChronoUnit unit, String suffix) {}

    private static final List<Unit> UNITS = List.of(
            new Unit(ChronoUnit.DAYS, "d"),
            new Unit(ChronoUnit.HOURS, "h"),
            new Unit(ChronoUnit.MINUTES, "m"),
            new Unit(ChronoUnit.SECONDS, "s"),
            new Unit(ChronoUnit.MILLIS, "ms"),
            new Unit(ChronoUnit.MICROS, "us"));

    private DurationText() {}

    /** In the largest unit that expresses it exactly, e.g. {@code 50ms}, {@code 90s}, {@code 2h}; null stays null. */
    public static String format(Duration duration) {
        if (duration == null) {
            return null;
        }
        if (duration.isZero()) {
            return "0s";
        }
        for (Unit unit : UNITS) {
            Duration one = unit.unit().getDuration();
            if (isMultiple(duration, one)) {
                return duration.dividedBy(one) + unit.suffix();
            }
        }
        return duration.toNanos() + "ns";
    }

    private static boolean isMultiple(Duration duration, Duration unit) {
        if (unit.getSeconds() > 0) {
            return duration.getNano() == 0 && duration.getSeconds() % unit.getSeconds() == 0;
        }
        return duration.getNano() % unit.getNano() == 0;
    }
}
