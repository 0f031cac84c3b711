package dev.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts of the backend, read from this package's resources. They run with EVALSHA;
 * a server that does not know a script yet (first use, restart, failover) answers NOSCRIPT and
 * gets it once with EVAL, which also caches it there.
 */
enum LockScripts {
    ACQUIRE("acquire.lua"),
    RENEW("renew.lua"),
    RELEASE("release.lua"),
    RAISE_FENCE("raise-fence.lua");

    private final String resource;
    private final byte[] body;
    private final String sha1;

    LockScripts(String resource) {
        this.resource = resource;
        this.body = read(resource);
        this.sha1 = sha1(body);
    }

    byte[] body() {
        return body.clone();
    }

    String sha1() {
        return sha1;
    }

    @Override
    public String toString() {
        return resource;
    }

    private static byte[] read(String resource) {
        try (InputStream in = LockScripts.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + resource + " is missing from the lock-redis jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read Lua script " + resource, e);
        }
    }

    private static String sha1(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is not available", e);
        }
    }
}
