package dev.distlock.sample.readme;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The code blocks of the repository's README that follow a {@code <!-- quickstart:NAME -->}
 * marker, by name, read from the file itself.
 */
final class ReadmeSnippets {

    private static final Pattern SNIPPET =
            Pattern.compile("<!-- quickstart:([\\w:-]+) -->\\s*\\n```\\w*\\n(.*?)\\n```", Pattern.DOTALL);

    private final Map<String, List<String>> snippets = new LinkedHashMap<>();

    private ReadmeSnippets(String readme) {
        Matcher matcher = SNIPPET.matcher(readme);
        while (matcher.find()) {
            snippets.computeIfAbsent(matcher.group(1), name -> new ArrayList<>())
                    .add(matcher.group(2));
        }
    }

    /** The README of the repository this test runs in (the module directory is the working directory). */
    static ReadmeSnippets load() {
        Path readme = Path.of("").toAbsolutePath().getParent().getParent().resolve("README.md");
        try {
            return new ReadmeSnippets(Files.readString(readme));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The one snippet of this name; fails when there is none or several. */
    String one(String name) {
        List<String> found = all(name);
        if (found.size() != 1) {
            throw new AssertionError("README has " + found.size() + " snippets marked quickstart:" + name);
        }
        return found.get(0);
    }

    /** The snippet of this name, when the README has one. */
    Optional<String> find(String name) {
        List<String> found = snippets.getOrDefault(name, List.of());
        return found.isEmpty() ? Optional.empty() : Optional.of(one(name));
    }

    /** Every snippet of this name, in README order; fails when there is none. */
    List<String> all(String name) {
        List<String> found = snippets.getOrDefault(name, List.of());
        if (found.isEmpty()) {
            throw new AssertionError("README has no snippet marked <!-- quickstart:" + name + " -->");
        }
        return found;
    }
}
