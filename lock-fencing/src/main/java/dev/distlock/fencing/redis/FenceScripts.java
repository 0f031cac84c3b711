package dev.distlock.fencing.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.springframework.data.redis.core.script.RedisScript;

/** The fence scripts, each with the shared rule of fence.lua in front. */
final class FenceScripts {

    static final RedisScript<List<String>> ADMIT = load("admit.lua");
    static final RedisScript<List<String>> SET = load("fenced-set.lua");
    static final RedisScript<List<String>> GET = load("fenced-get.lua");
    static final RedisScript<List<String>> REBIND = load("rebind.lua");
    static final RedisScript<List<String>> FENCE_OF = load("fence-of.lua");

    private FenceScripts() {}

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static RedisScript<List<String>> load(String name) {
        return (RedisScript) RedisScript.of(read("fence.lua") + "\n" + read(name), List.class);
    }

    private static String read(String name) {
        try (InputStream in = FenceScripts.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("Fence script " + name + " is missing from the lock-fencing jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
