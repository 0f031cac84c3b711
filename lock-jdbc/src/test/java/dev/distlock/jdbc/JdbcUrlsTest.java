package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JdbcUrlsTest {

    @Test
    void credentialsAndPropertiesAreLeftOut() {
        assertThat(JdbcUrls.withoutCredentials("jdbc:postgresql://app:secret@db:5432/orders?password=secret&ssl=true"))
                .isEqualTo("jdbc:postgresql://db:5432/orders");
        assertThat(JdbcUrls.withoutCredentials("jdbc:mariadb://db/orders?user=root&password=secret"))
                .isEqualTo("jdbc:mariadb://db/orders");
        assertThat(JdbcUrls.withoutCredentials("jdbc:h2:mem:test;PASSWORD=secret"))
                .isEqualTo("jdbc:h2:mem:test");
        assertThat(JdbcUrls.withoutCredentials(null)).isEqualTo("unknown JDBC URL");
    }
}
