package dev.distlock.spring.actuate;

import dev.distlock.core.FencingToken;

/** A resource that checks fencing tokens: it refuses a write whose token is below one it has seen. */
final class FencedResource {

    private FencingToken highest;

    /** @return false when the write was refused as stale */
    synchronized boolean write(FencingToken token) {
        if (highest != null && token.compareTo(highest) < 0) {
            return false;
        }
        highest = token;
        return true;
    }
}
