package dev.distlock.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.StaticJavaParser;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.RecordDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NullLiteralExpr;
import com.github.javaparser.ast.expr.ObjectCreationExpr;
import com.github.javaparser.ast.nodeTypes.NodeWithArguments;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Size limits on the main code of every module, the contract kit included: a reader takes in a file, a method and
 * a call at a glance. Files stay within {@value #MAX_FILE_LINES} lines, methods and constructors within {@value
 * #MAX_METHOD_LINES}, parameter lists within {@value #MAX_PARAMETERS} (a record's components are its fields, not a
 * parameter list), and no call passes a bare {@code null} for a parameter of ours.
 */
class SizeLimitsTest {

    static final int MAX_FILE_LINES = 300;
    static final int MAX_METHOD_LINES = 50;
    static final int MAX_PARAMETERS = 5;

    private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
    private static final List<Source> SOURCES = new ArrayList<>();

    record Source(Path path, List<String> lines, CompilationUnit unit) {

        String where(int line) {
            return ROOT.relativize(path) + ":" + line;
        }
    }

    @BeforeAll
    static void parse() throws IOException {
        StaticJavaParser.getParserConfiguration().setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17);
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path module : modules.filter(
                            dir -> dir.getFileName().toString().startsWith("lock-"))
                    .toList()) {
                Path main = module.resolve("src/main/java");
                if (Files.isDirectory(main)) {
                    SOURCES.addAll(sources(main));
                }
            }
        }
        assertThat(SOURCES).as("main sources under %s", ROOT).hasSizeGreaterThan(300);
    }

    private static List<Source> sources(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(file -> file.toString().endsWith(".java"))
                    .map(SizeLimitsTest::source)
                    .toList();
        }
    }

    private static Source source(Path file) {
        try {
            return new Source(file, Files.readAllLines(file), StaticJavaParser.parse(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void noFileIsLongerThanTheLimit() {
        List<String> tooLong = SOURCES.stream()
                .filter(source -> source.lines().size() > MAX_FILE_LINES)
                .map(source -> source.where(1) + " has " + source.lines().size() + " lines")
                .toList();
        assertThat(tooLong).as("files over %d lines", MAX_FILE_LINES).isEmpty();
    }

    @Test
    void noMethodIsLongerThanTheLimit() {
        List<String> tooLong = findings((source, found) -> source.unit()
                .findAll(CallableDeclaration.class)
                .forEach(callable -> callable.getRange().ifPresent(range -> {
                    int lines = range.end.line - range.begin.line + 1;
                    if (lines > MAX_METHOD_LINES) {
                        found.add(source.where(range.begin.line) + " " + callable.getNameAsString() + ": " + lines);
                    }
                })));
        assertThat(tooLong).as("methods over %d lines", MAX_METHOD_LINES).isEmpty();
    }

    @Test
    void noMethodTakesMoreThanTheLimitOfParameters() {
        List<String> wide = findings((source, found) -> source.unit()
                .findAll(CallableDeclaration.class)
                .forEach(callable -> {
                    int count = callable.getParameters().size();
                    if (count > MAX_PARAMETERS) {
                        found.add(source.where(line(callable)) + " " + callable.getNameAsString() + ": " + count
                                + " parameters");
                    }
                }));
        assertThat(wide)
                .as("methods with more than %d parameters", MAX_PARAMETERS)
                .isEmpty();
    }

    /**
     * A call to a method or constructor of ours passes no bare {@code null}: an absent value has a name (an overload,
     * a factory, a record). Calls into the JDK and libraries are not ours to shape, and a contract rule that checks the
     * error for a null argument passes one on purpose, inside {@code assertThatThrownBy}.
     */
    @Test
    void noCallOfOursPassesABareNull() {
        Set<String> ours = new HashSet<>();
        SOURCES.forEach(source -> {
            source.unit().findAll(CallableDeclaration.class).forEach(callable -> ours.add(callable.getNameAsString()));
            source.unit().findAll(TypeDeclaration.class).forEach(type -> ours.add(type.getNameAsString()));
        });
        List<String> nulls = findings((source, found) -> Stream.concat(
                        source.unit().findAll(MethodCallExpr.class).stream(),
                        source.unit().findAll(ObjectCreationExpr.class).stream())
                .filter(call -> ours.contains(calleeName(call)) && !NOT_OURS.contains(calleeName(call)))
                .filter(call -> ((NodeWithArguments<?>) call)
                        .getArguments().stream().anyMatch(NullLiteralExpr.class::isInstance))
                .filter(call -> !checksBadInput(call) && !inOwnRecord(call))
                .forEach(call -> found.add(source.where(line(call)) + " " + call)));
        assertThat(nulls).as("calls of ours with a positional null").isEmpty();
    }

    /** Names that our code declares too but that the calls here reach in the JDK or a library. */
    private static final Set<String> NOT_OURS =
            Set.of("orElse", "complete", "completedFuture", "compareAndSet", "getAndSet", "getNow", "invoke");

    private static String calleeName(Node call) {
        return call instanceof MethodCallExpr method
                ? method.getNameAsString()
                : ((ObjectCreationExpr) call).getType().getNameAsString();
    }

    /** A record's own factory methods name the absent values for their callers: {@code new Self(..., null)}. */
    private static boolean inOwnRecord(Node call) {
        return call instanceof ObjectCreationExpr creation
                && call.findAncestor(RecordDeclaration.class)
                        .filter(record -> record.getNameAsString()
                                .equals(creation.getType().getNameAsString()))
                        .isPresent();
    }

    private static boolean checksBadInput(Node call) {
        return call.findAncestor(
                        MethodCallExpr.class,
                        ancestor -> ancestor.getNameAsString().startsWith("assertThatThrownBy"))
                .isPresent();
    }

    private static int line(Node node) {
        return node.getBegin().map(position -> position.line).orElse(0);
    }

    private static List<String> findings(BiConsumer<Source, List<String>> check) {
        List<String> found = new ArrayList<>();
        SOURCES.forEach(source -> check.accept(source, found));
        return found;
    }
}
