package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TableNameTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "x; drop table y",
                "",
                " ",
                "1locks",
                "locks-table",
                "a.b.c",
                "locks.",
                ".locks",
                "\"locks\"",
                "locks--",
                "lock table",
                "x'y",
                "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl"
            })
    void namesThatAreNotPlainIdentifiersAreRejectedBeforeAnySql(String name) {
        JdbcLockRegistry.Builder builder = JdbcLockRegistry.builder(new JdbcDataSource());
        assertThatThrownBy(() -> builder.tableName(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Invalid lock table name")
                .hasMessageContaining("jdbc");
    }

    @ParameterizedTest
    @ValueSource(strings = {"distributed_lock", "LOCKS", "_locks2", "app.distributed_lock", "s_1.t_2"})
    void plainAndSchemaQualifiedIdentifiersAreAccepted(String name) {
        assertThat(new TableName(name).into("SELECT * FROM ${table} WHERE 1 = 0"))
                .isEqualTo("SELECT * FROM " + name + " WHERE 1 = 0");
    }

    @org.junit.jupiter.api.Test
    void nullNameIsRejected() {
        assertThatThrownBy(() -> new TableName(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
