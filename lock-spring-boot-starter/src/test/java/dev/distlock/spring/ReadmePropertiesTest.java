package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every {@code distributed-lock.*} property the starter binds (as its generated configuration
 * metadata lists them) is documented in the README: a top-level one as a row of the property
 * table, a nested one by its full name, by its name after the prefix ({@code `.health.enabled`}),
 * or by its own name beside its group's.
 */
class ReadmePropertiesTest {

    private static final Pattern PROPERTY = Pattern.compile("\"name\"\\s*:\\s*\"(distributed-lock\\.[^\"]+)\"");

    @Test
    void everyBoundPropertyIsInTheReadme() throws Exception {
        String readme =
                Files.readString(Path.of("").toAbsolutePath().getParent().resolve("README.md"));
        List<String> properties = boundProperties();
        assertThat(properties).as("properties in the metadata").contains("distributed-lock.key-prefix");

        List<String> missing = new ArrayList<>();
        for (String property : properties) {
            String name = property.substring("distributed-lock.".length());
            int dot = name.lastIndexOf('.');
            boolean documented = dot < 0
                    ? readme.contains("| `" + property + "` |")
                    : readme.contains("`" + property + "`")
                            || readme.contains("`." + name + "`")
                            || (readme.contains("distributed-lock." + name.substring(0, dot) + ".")
                                    && readme.contains("`" + name.substring(dot + 1) + "`"));
            if (!documented) {
                missing.add(property);
            }
        }
        assertThat(missing).as("properties the README does not document").isEmpty();
    }

    private static List<String> boundProperties() throws Exception {
        String metadata;
        try (InputStream in =
                ReadmePropertiesTest.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the starter's configuration metadata").isNotNull();
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        // Only the "properties" array: groups name prefixes, not properties.
        int start = metadata.indexOf("\"properties\"");
        int end = metadata.indexOf("\"hints\"", start);
        Matcher matcher = PROPERTY.matcher(metadata.substring(start, end < 0 ? metadata.length() : end));
        List<String> properties = new ArrayList<>();
        while (matcher.find()) {
            properties.add(matcher.group(1));
        }
        return properties;
    }
}
