package dev.distlock.sample.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A new Maven project as a user would make it from the README: Spring Boot's parent, the
 * README's BOM import and dependencies, its Java files and its {@code application.yml}, plus an
 * application class that calls the README's beans once and exits.
 */
final class QuickStartProject {

    private static final Pattern PUBLIC_CLASS = Pattern.compile("public class (\\w+)");
    private static final Pattern PROPERTIES = Pattern.compile("<properties>(.*?)</properties>", Pattern.DOTALL);
    static final String DONE = "QUICKSTART-DONE";

    private static final String APPLICATION = """
            package com.example.orders;

            import org.springframework.boot.CommandLineRunner;
            import org.springframework.boot.SpringApplication;
            import org.springframework.boot.autoconfigure.SpringBootApplication;
            import org.springframework.context.annotation.Bean;

            @SpringBootApplication
            public class QuickStartApplication {

                public static void main(String[] args) {
                    System.exit(SpringApplication.exit(SpringApplication.run(QuickStartApplication.class, args)));
                }

                @Bean
                CommandLineRunner useTheLocks(StockService stock, Reports reports) {
                    return args -> {
                        long token = stock.buy("SKU-1", 1);
                        stock.nightlyReport();
                        System.out.println("%s token=" + token + " reports=" + reports.render());
                    };
                }
            }
            """.formatted(DONE);

    private final Path dir;

    private QuickStartProject(Path dir) {
        this.dir = dir;
    }

    static QuickStartProject create(
            Path dir, ReadmeSnippets readme, String backend, String bootVersion, boolean boot35Properties) {
        String properties = "<java.version>17</java.version>";
        if (boot35Properties) {
            // What the README says a Spring Boot 3.5 project needs for this backend, if anything.
            for (String extra :
                    readme.find(backend + ":boot35-properties").stream().toList()) {
                Matcher matcher = PROPERTIES.matcher(extra);
                assertThat(matcher.find())
                        .as("README's Boot 3.5 snippet for " + backend)
                        .isTrue();
                properties += matcher.group(1);
            }
        }
        String pom = """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <parent>
                    <groupId>org.springframework.boot</groupId>
                    <artifactId>spring-boot-starter-parent</artifactId>
                    <version>%s</version>
                    <relativePath/>
                  </parent>
                  <groupId>com.example</groupId>
                  <artifactId>orders</artifactId>
                  <version>1.0</version>
                  <properties>%s</properties>
                  %s
                  <dependencies>
                    <dependency>
                      <groupId>org.springframework.boot</groupId>
                      <artifactId>spring-boot-starter</artifactId>
                    </dependency>
                    %s
                  </dependencies>
                </project>
                """.formatted(bootVersion, properties, readme.one("bom"), dependencies(readme, backend));
        try {
            Files.writeString(dir.resolve("pom.xml"), pom);
            Path sources = Files.createDirectories(dir.resolve("src/main/java/com/example/orders"));
            for (String java : readme.all("java")) {
                Matcher name = PUBLIC_CLASS.matcher(java);
                assertThat(name.find())
                        .as("a public class in the README snippet:\n" + java)
                        .isTrue();
                Files.writeString(sources.resolve(name.group(1) + ".java"), java);
            }
            Files.writeString(sources.resolve("QuickStartApplication.java"), APPLICATION);
            Path resources = Files.createDirectories(dir.resolve("src/main/resources"));
            Files.writeString(resources.resolve("application.yml"), readme.one(backend + ":yaml"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new QuickStartProject(dir);
    }

    /** The backend's dependencies, and the README's data dependencies unless the backend's already bring a database. */
    private static String dependencies(ReadmeSnippets readme, String backend) {
        String pom = readme.one(backend + ":pom");
        return pom.contains("spring-boot-starter-jdbc") ? pom : pom + "\n" + readme.one("data:pom");
    }

    /** Compiles the project with Maven and writes its runtime classpath; returns Maven's output. */
    Result build() {
        List<String> command = new ArrayList<>(List.of(
                "mvn",
                "-B",
                "-q",
                "compile",
                "dependency:build-classpath",
                "-Dmdep.outputFile=classpath.txt",
                "-Dmdep.includeScope=runtime"));
        if (offline()) {
            command.add("-o");
        }
        return run(command, 300);
    }

    /** Starts the application with extra command-line properties (server addresses) and waits for it to end. */
    Result start(List<String> arguments) {
        String classpath;
        try {
            classpath = dir.resolve("target/classes") + ":" + Files.readString(dir.resolve("classpath.txt"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classpath,
                "com.example.orders.QuickStartApplication"));
        command.addAll(arguments);
        return run(command, 120);
    }

    private Result run(List<String> command, int timeoutSeconds) {
        try {
            Path output = Files.createTempFile(dir, "output", ".txt");
            Process process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            boolean ended = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            if (!ended) {
                process.destroyForcibly().waitFor();
            }
            return new Result(ended ? process.exitValue() : -1, Files.readString(output));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Offline when the outer build is, so that the test never reaches the network on its own. */
    private static boolean offline() {
        String args = " " + System.getenv().getOrDefault("MAVEN_CMD_LINE_ARGS", "") + " ";
        return args.contains(" -o ") || args.contains(" --offline ");
    }

    record Result(int exitCode, String output) {}
}
