package dev.distlock.core.engine;

import java.security.SecureRandom;
import java.util.Base64;

/** Registry ids: 128 random bits, so owners are unique across JVMs and hosts. */
final class OwnerIds {

    private static final SecureRandom RANDOM = new SecureRandom();

    private OwnerIds() {}

    static String newRegistryId() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
