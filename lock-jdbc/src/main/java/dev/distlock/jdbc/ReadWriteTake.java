package dev.distlock.jdbc;

import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.OwnerId;

/**
 * One request to take one side of a read/write lock, as {@link JdbcReadWriteTable#attempt} sends it.
 *
 * @param leaseMicros the lease, in µs
 * @param intentMicros how long a refused writer's intent holds new readers back, in µs, 0 for none
 */
record ReadWriteTake(String key, LockMode mode, OwnerId owner, long leaseMicros, long intentMicros, String holder) {}
