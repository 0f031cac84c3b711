package dev.distlock.core.engine;

import dev.distlock.core.spi.BackendLease;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The local states of the keys one engine holds or waits for. A key's state lives while it has
 * users (threads waiting for it, holds of it) and is dropped when the last one leaves, so idle
 * keys cost nothing.
 */
final class KeyStates<L extends BackendLease> {

    private final ConcurrentHashMap<String, KeyState<L>> states = new ConcurrentHashMap<>();
    private final int gatePermits;

    KeyStates(int gatePermits) {
        this.gatePermits = gatePermits;
    }

    /** The state of {@code fullKey} if some thread uses it now, without becoming a user. */
    KeyState<L> existing(String fullKey) {
        return states.get(fullKey);
    }

    /**
     * Counts a user of the key's state; the state is dropped when its last user leaves. A state
     * whose count reached zero is dead for good: a new user replaces it with a fresh one.
     */
    KeyState<L> retain(String fullKey) {
        while (true) {
            KeyState<L> state = states.get(fullKey);
            if (state == null) {
                KeyState<L> fresh = new KeyState<>(fullKey, gatePermits);
                state = states.putIfAbsent(fullKey, fresh);
                if (state == null) {
                    return fresh;
                }
            }
            if (state.retain()) {
                return state;
            }
            states.remove(fullKey, state); // dead: its last user is removing it right now
        }
    }

    void unretain(KeyState<L> state) {
        if (state.unretain()) {
            states.remove(state.fullKey, state);
        }
    }

    int size() {
        return states.size();
    }

    void clear() {
        states.clear();
    }
}
