package dev.distlock.spring.fencing;

import dev.distlock.core.fencing.StaleTokenException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.support.PersistenceExceptionTranslator;

/**
 * Turns a stale token refused inside a {@code @Repository} bean (e.g. by {@code FencedUpdate}) into
 * {@link StaleFencingTokenException}, through Spring's persistence exception translation.
 */
final class StaleTokenExceptionTranslator implements PersistenceExceptionTranslator {

    @Override
    public DataAccessException translateExceptionIfPossible(RuntimeException ex) {
        return ex instanceof StaleTokenException stale ? new StaleFencingTokenException(stale) : null;
    }
}
