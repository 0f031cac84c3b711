package dev.distlock.core.engine;

import dev.distlock.core.LockHolder;
import dev.distlock.core.spi.LockRequest;
import java.net.InetAddress;

/**
 * The readable holder description stored with each lock on the server: application, host, pid
 * and thread, e.g. {@code "orders@web-3 pid 4711 thread http-nio-8080-exec-2"}. Printable ASCII,
 * at most {@link LockRequest#MAX_HOLDER_LENGTH} characters.
 */
final class HolderDescription {

    private static final String HOST = hostName();
    private static final long PID = ProcessHandle.current().pid();

    private final String prefix;
    /** The last description per thread: names rarely change, and this runs on every acquisition. */
    private final ThreadLocal<String[]> lastByThread = new ThreadLocal<>();

    HolderDescription(String applicationName) {
        String app = applicationName.isBlank() ? "" : applicationName + "@";
        this.prefix = clean(app + HOST + " pid " + PID).replace(LockHolder.NOTE_MARKER, " note ");
    }

    /** The description of a new hold of {@code owner}, followed by {@code note} when there is one. */
    String of(Thread owner, String note) {
        String text = of(owner);
        if (note == null) {
            return text;
        }
        String suffix = LockHolder.NOTE_MARKER + note;
        int room = LockRequest.MAX_HOLDER_LENGTH - suffix.length();
        return (text.length() <= room ? text : text.substring(0, room)) + suffix;
    }

    /**
     * Checks a note for {@code FencedLock.withNote}: printable ASCII, at most {@link LockHolder#MAX_NOTE_LENGTH}
     * characters.
     */
    static String checkNote(String note, String key, String backend) {
        if (note == null || note.isEmpty()) {
            throw new IllegalArgumentException("The note for lock '" + key + "' on " + backend
                    + " is empty; pass a short text such as a URL, or obtain the lock without a note");
        }
        if (note.length() > LockHolder.MAX_NOTE_LENGTH) {
            throw new IllegalArgumentException("The note for lock '" + key + "' on " + backend + " has " + note.length()
                    + " characters; at most " + LockHolder.MAX_NOTE_LENGTH + " are stored");
        }
        if (note.contains(LockHolder.NOTE_MARKER)) {
            throw new IllegalArgumentException("The note for lock '" + key + "' on " + backend + " contains '"
                    + LockHolder.NOTE_MARKER + "', which separates notes from descriptions; reword it");
        }
        for (int i = 0; i < note.length(); i++) {
            char c = note.charAt(i);
            if (c < 0x20 || c >= 0x7f) {
                throw new IllegalArgumentException("The note for lock '" + key + "' on " + backend
                        + " has a character that is not printable ASCII at index " + i
                        + "; encode it (e.g. percent-encoding) first");
            }
        }
        return note;
    }

    String of(Thread owner) {
        if (owner == null) {
            return limited(prefix + " (handle)");
        }
        String name = owner.getName();
        String[] last = lastByThread.get();
        if (last != null && last[0].equals(name)) {
            return last[1];
        }
        String text = describe(owner);
        lastByThread.set(new String[] {name, text});
        return text;
    }

    private String describe(Thread owner) {
        // A thread name never reads as a note.
        return limited(prefix + " thread " + clean(owner.getName()).replace(LockHolder.NOTE_MARKER, " note "));
    }

    private static String limited(String text) {
        return text.length() <= LockRequest.MAX_HOLDER_LENGTH ? text : text.substring(0, LockRequest.MAX_HOLDER_LENGTH);
    }

    private static String clean(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            out.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return out.toString();
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown-host";
        }
    }
}
