package dev.distlock.jdbc;

import java.util.regex.Pattern;

/** JDBC URLs as they may appear in messages, without user, password or other properties. */
final class JdbcUrls {

    private static final Pattern USER_INFO = Pattern.compile("//[^/@?;]*@");

    private JdbcUrls() {}

    /** {@code jdbc:postgresql://u:p@host:5432/db?password=x} becomes {@code jdbc:postgresql://host:5432/db}. */
    static String withoutCredentials(String url) {
        if (url == null) {
            return "unknown JDBC URL";
        }
        String bare = url;
        int properties = indexOfAny(bare, '?', ';');
        if (properties >= 0) {
            bare = bare.substring(0, properties);
        }
        return USER_INFO.matcher(bare).replaceFirst("//");
    }

    private static int indexOfAny(String text, char first, char second) {
        int a = text.indexOf(first);
        int b = text.indexOf(second);
        if (a < 0) {
            return b;
        }
        return b < 0 ? a : Math.min(a, b);
    }
}
