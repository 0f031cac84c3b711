package dev.distlock.bench.contention;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Closes what was opened, last opened first; the first failure is thrown (checked ones wrapped), later
 * ones are added to it.
 */
final class Closer implements AutoCloseable {

    private final Deque<AutoCloseable> opened = new ArrayDeque<>();

    /** Remembers {@code closing} to be run at {@link #close()}; returns {@code resource}. */
    <T> T add(T resource, AutoCloseable closing) {
        opened.push(closing);
        return resource;
    }

    <T extends AutoCloseable> T add(T resource) {
        return add(resource, resource);
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        while (!opened.isEmpty()) {
            try {
                opened.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e instanceof RuntimeException unchecked
                            ? unchecked
                            : new IllegalStateException("closing failed", e);
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
