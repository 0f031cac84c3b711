package dev.distlock.core;

/**
 * A number that strictly rises with every new holder of a key. Pass it with each write
 * to the protected resource, which keeps the highest token it has seen and refuses
 * writes that carry a lower one: a holder paused past its lease is then refused.
 *
 * @param value the token; positive
 */
public record FencingToken(long value) implements Comparable<FencingToken> {

    public FencingToken {
        if (value <= 0) {
            throw new IllegalArgumentException("A fencing token is positive, was " + value);
        }
    }

    public static FencingToken of(long value) {
        return new FencingToken(value);
    }

    /** True when this token was issued after {@code other} for the same key. */
    public boolean isNewerThan(FencingToken other) {
        return value > other.value;
    }

    @Override
    public int compareTo(FencingToken other) {
        return Long.compare(value, other.value);
    }

    @Override
    public String toString() {
        return Long.toString(value);
    }
}
