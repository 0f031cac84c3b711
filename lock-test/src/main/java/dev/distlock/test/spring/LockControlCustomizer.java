package dev.distlock.test.spring;

import dev.distlock.test.LockControl;

/**
 * Steers the controlled registry before the application starts. A bean of this type (in a
 * {@code @TestConfiguration}) runs once the registry exists, before the starter's start-up check
 * and the application's own start-up code use it, e.g. to start with the backend unreachable.
 */
@FunctionalInterface
public interface LockControlCustomizer {

    void customize(LockControl control);
}
