package dev.distlock.core;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The keys a semaphore ({@code dev.distlock.core.semaphore.LeasedSemaphore}) keeps, {@code <name>:permit:<slot>}, {@code <name>:permit:queue} and {@code
 * <name>:permit:waiting}, and the check that keeps plain locks off them (contract 15). They are part of
 * the API because every registry refuses them as plain lock keys.
 */
public final class SemaphoreKeys {

    private static final String SEPARATOR = ":permit:";
    private static final String QUEUE = "queue";
    private static final String WAITING = "waiting";
    /** Every key a semaphore keeps, and no other. */
    private static final Pattern OWN_KEY =
            Pattern.compile("(?s)(.+)" + SEPARATOR + "([0-9]+|" + QUEUE + "|" + WAITING + ")");

    private SemaphoreKeys() {}

    /** The key of a semaphore's permit {@code slot}. */
    public static String slot(String name, int slot) {
        return name + SEPARATOR + slot;
    }

    /** The key of a semaphore's queue. */
    public static String queue(String name) {
        return name + SEPARATOR + QUEUE;
    }

    /** The key of a semaphore's waiting list. */
    public static String waiting(String name) {
        return name + SEPARATOR + WAITING;
    }

    /**
     * Refuses {@code key} as a plain lock's key when it is one a semaphore keeps: a plain lock there would take or
     * block a permit, or be refused as a permit of another count. Holder reads and force-releases of these keys stay
     * allowed.
     *
     * @throws IllegalArgumentException naming the key, the backend and the semaphore it belongs to
     */
    public static void checkNotOwnKey(String key, String backend) {
        Matcher own = key == null ? null : OWN_KEY.matcher(key);
        if (own == null || !own.matches()) {
            return;
        }
        String shown = key.length() <= 80 ? key : key.substring(0, 80) + "...";
        String part =
                Character.isDigit(own.group(2).charAt(0)) ? "permit " + own.group(2) : "the " + own.group(2) + " key";
        throw new IllegalArgumentException("Lock key '" + shown + "' (" + backend + " backend) is " + part
                + " of semaphore '" + own.group(1) + "': a plain lock there would take or block the semaphore's"
                + " permits. Use another key, or LeasedSemaphore for the semaphore.");
    }
}
