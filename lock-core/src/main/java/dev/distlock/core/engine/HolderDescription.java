package dev.distlock.core.engine;

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
        this.prefix = clean(app + HOST + " pid " + PID);
    }

    String of(Thread owner) {
        if (owner == null) {
            return describe(null);
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
        String text = prefix + (owner == null ? " (handle)" : " thread " + clean(owner.getName()));
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
