package dev.distlock.contract.timing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Runs a child JVM's main class with this JVM's {@link StallProbe#shared() probe} reporting to the file its parent
 * named, so a parent probes its children without a line of their code. See {@link #arguments}.
 */
public final class ProbedMain {

    private ProbedMain() {}

    /**
     * The child's JVM arguments from the stall option on. The option, this class, then {@code main}, whose own
     * arguments follow. The parent reads the child's stalls with {@link StallSource#reportedIn}{@code (file)}.
     */
    public static List<String> arguments(Path file, Class<?> main) {
        return List.of(StallProbe.jvmOption(file), ProbedMain.class.getName(), main.getName());
    }

    /** Starts the probe, then calls the main method of the class named by the first argument with the others. */
    public static void main(String[] args) throws Throwable {
        if (args.length == 0) {
            throw new IllegalArgumentException("Name the main class to run under the stall probe.");
        }
        StallProbe.shared();
        Method main = Class.forName(args[0]).getDeclaredMethod("main", String[].class);
        main.setAccessible(true); // a test's main class is often package-private
        try {
            main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
