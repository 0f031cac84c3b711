package dev.distlock.spring.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.StaleTokenException;
import org.junit.jupiter.api.Test;
import org.springframework.dao.OptimisticLockingFailureException;

/** A stale token refused inside a {@code @Repository} bean becomes an optimistic-locking failure. */
class StaleTokenExceptionTranslatorTest {

    private final StaleTokenExceptionTranslator translator = new StaleTokenExceptionTranslator();

    @Test
    void staleTokenBecomesAnOptimisticLockingFailureWithTheCoreExceptionAsCause() {
        StaleTokenException stale =
                new StaleTokenException("stock[sku=SKU-1]", "stock:SKU-1", FencingToken.of(3), FencingToken.of(7));

        assertThat(translator.translateExceptionIfPossible(stale))
                .isInstanceOf(OptimisticLockingFailureException.class)
                .isInstanceOfSatisfying(StaleFencingTokenException.class, e -> {
                    assertThat(e.getCause()).isSameAs(stale);
                    assertThat(e.resource()).isEqualTo("stock[sku=SKU-1]");
                    assertThat(e.refused()).isEqualTo(FencingToken.of(3));
                    assertThat(e.highest()).isEqualTo(FencingToken.of(7));
                });
    }

    @Test
    void otherExceptionsAreLeftToOtherTranslators() {
        assertThat(translator.translateExceptionIfPossible(new IllegalStateException("other")))
                .isNull();
    }
}
