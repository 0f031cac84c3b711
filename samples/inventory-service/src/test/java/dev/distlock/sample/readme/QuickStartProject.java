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

    /** The starter as the quick start's dependencies name it. */
    private static final String STARTER = """
            <dependency>
              <groupId>dev.distlock</groupId>
              <artifactId>lock-spring-boot-starter</artifactId>
            </dependency>
            """;

    private static final String PAYMENTS_APPLICATION = """
            package com.example.payments;

            import org.springframework.boot.autoconfigure.SpringBootApplication;

            @SpringBootApplication
            public class PaymentsApplication {}
            """;

    private static final String KOTLIN_APPLICATION = """
            package com.example.orders

            import kotlin.system.exitProcess
            import kotlinx.coroutines.flow.toList
            import kotlinx.coroutines.runBlocking
            import org.springframework.boot.CommandLineRunner
            import org.springframework.boot.SpringApplication
            import org.springframework.boot.autoconfigure.SpringBootApplication
            import org.springframework.context.annotation.Bean

            @SpringBootApplication
            class KotlinQuickStartApplication {

                @Bean
                fun stock(): Stock = object : Stock {
                    override suspend fun reserve(sku: String, quantity: Int, fencingToken: Long): Int = quantity
                    override suspend fun restock(sku: String, fencingToken: Long): Int = fencingToken.toInt()
                }

                @Bean
                fun useTheLocks(reservations: Reservations, restocking: Restocking) = CommandLineRunner {
                    runBlocking {
                        val reserved = reservations.reserve("SKU-1", 2)
                        val token = restocking.restock("SKU-1")
                        val report = restocking.report(listOf("SKU-1")).toList()
                        println("%s reserved=$reserved restock-token=$token report=$report")
                    }
                }
            }

            fun main(args: Array<String>) {
                exitProcess(SpringApplication.exit(SpringApplication.run(KotlinQuickStartApplication::class.java, *args)))
            }
            """.formatted(DONE);

    private final Path dir;

    private QuickStartProject(Path dir) {
        this.dir = dir;
    }

    static QuickStartProject create(
            Path dir, ReadmeSnippets readme, String backend, String bootVersion, boolean boot35Properties) {
        String properties = properties(readme, backend, boot35Properties);
        String pom = pom(bootVersion, properties, readme.one("bom"), dependencies(readme, backend), "");
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

    /**
     * The README's test-support example as a project of its own: the starter, the README's lock-test
     * dependency and Spring Boot's test starter, the README's job and its test, and an application class.
     */
    static QuickStartProject createTestSupport(Path dir, ReadmeSnippets readme, String bootVersion) {
        String dependencies = STARTER + readme.one("test-support:pom") + """
                <dependency>
                  <groupId>org.springframework.boot</groupId>
                  <artifactId>spring-boot-starter-test</artifactId>
                  <scope>test</scope>
                </dependency>
                """;
        String pom = pom(bootVersion, "<java.version>17</java.version>", readme.one("bom"), dependencies, "");
        try {
            Files.writeString(dir.resolve("pom.xml"), pom);
            Path main = Files.createDirectories(dir.resolve("src/main/java/com/example/payments"));
            Files.writeString(main.resolve("PaymentJob.java"), readme.one("test-support:java"));
            Files.writeString(main.resolve("PaymentsApplication.java"), PAYMENTS_APPLICATION);
            Path test = Files.createDirectories(dir.resolve("src/test/java/com/example/payments"));
            Files.writeString(test.resolve("PaymentJobTest.java"), readme.one("test-support:test"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new QuickStartProject(dir);
    }

    /**
     * The README's Kotlin example as a project of its own: its dependencies and build setup (the Kotlin
     * compiler with the spring plugin), its source file, and a Kotlin application that calls its beans once.
     */
    static QuickStartProject createKotlin(Path dir, ReadmeSnippets readme, String bootVersion) {
        String pom = pom(
                bootVersion,
                properties(readme, "kotlin", bootVersion.startsWith("3.")),
                readme.one("bom"),
                readme.one("kotlin:pom"),
                readme.one("kotlin:build"));
        try {
            Files.writeString(dir.resolve("pom.xml"), pom);
            Path sources = Files.createDirectories(dir.resolve("src/main/kotlin/com/example/orders"));
            Files.writeString(sources.resolve("Reservations.kt"), readme.one("kotlin"));
            Files.writeString(sources.resolve("KotlinQuickStartApplication.kt"), KOTLIN_APPLICATION);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new QuickStartProject(dir);
    }

    /** Java 17, and what the README says a Spring Boot 3.5 project needs for this example, if anything. */
    private static String properties(ReadmeSnippets readme, String example, boolean boot35Properties) {
        String properties = "<java.version>17</java.version>";
        if (boot35Properties) {
            for (String extra :
                    readme.find(example + ":boot35-properties").stream().toList()) {
                Matcher matcher = PROPERTIES.matcher(extra);
                assertThat(matcher.find())
                        .as("README's Boot 3.5 snippet for " + example)
                        .isTrue();
                properties += matcher.group(1);
            }
        }
        return properties;
    }

    private static String pom(String bootVersion, String properties, String bom, String dependencies, String build) {
        return """
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
                  %s
                </project>
                """.formatted(bootVersion, properties, bom, dependencies, build);
    }

    /** The backend's dependencies, and the README's data dependencies unless the backend's already bring a database. */
    private static String dependencies(ReadmeSnippets readme, String backend) {
        String pom = readme.one(backend + ":pom");
        return pom.contains("spring-boot-starter-jdbc") ? pom : pom + "\n" + readme.one("data:pom");
    }

    /** Compiles the project with Maven and writes its runtime classpath; returns Maven's output. */
    Result build() {
        return maven(
                "compile",
                "dependency:build-classpath",
                "-Dmdep.outputFile=classpath.txt",
                "-Dmdep.includeScope=runtime");
    }

    /** Runs the project's tests with Maven; returns Maven's output. */
    Result test() {
        return maven("test");
    }

    /** Maven's test report (JUnit XML) of this test class, after {@link #test()}. */
    String testReport(String testClass) {
        try {
            return Files.readString(dir.resolve("target/surefire-reports/TEST-" + testClass + ".xml"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Maven in the project's directory, offline when the outer build is, and on the outer build's local
     * repository, so the distlock artifacts are the ones that build installed (also with its own
     * {@code -Dmaven.repo.local}).
     */
    private Result maven(String... arguments) {
        List<String> command = new ArrayList<>(List.of("mvn", "-B", "-q"));
        command.addAll(List.of(arguments));
        if (offline()) {
            command.add("-o");
        }
        String repository = System.getProperty("quickstart.maven.repo.local", "");
        if (!repository.isBlank()) {
            command.add("-Dmaven.repo.local=" + repository);
        }
        return run(command, 600);
    }

    /** Starts the application's main class with extra command-line properties (server addresses) and waits for it to end. */
    Result start(String mainClass, List<String> arguments) {
        String classpath;
        try {
            classpath = dir.resolve("target/classes") + ":" + Files.readString(dir.resolve("classpath.txt"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", classpath, mainClass));
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
