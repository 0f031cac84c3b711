package dev.distlock.leadertests;

import dev.distlock.contract.timing.ProbedMain;
import dev.distlock.contract.timing.StallSource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A main class of this module run in a JVM of its own, for tests that kill or stop it: its output lines with the time
 * each was read, and the signals. Such a main prints {@value #STOPPED_WHILE_ASKING} after an answer that it computed
 * before a stop and printed after it, so that {@link #answersAfter} does not read that answer as a claim made after
 * the stop. The child runs its stall probe ({@link #stalls}).
 */
class ChildJvm implements AutoCloseable {

    /** Marks the line before it as asked before a stop and printed after it. */
    static final String STOPPED_WHILE_ASKING = "STOPPED WHILE ASKING";

    /** One line of the child's output and when this JVM read it. */
    record Line(String text, long atNanos) {}

    private final String what;
    private final Process process;
    private final Path stallFile;
    private final List<Line> lines = new ArrayList<>();
    private boolean ended;

    ChildJvm(Class<?> main, List<String> args) throws IOException {
        this.what = main.getSimpleName();
        this.stallFile = Files.createTempFile("distlock-child-stalls-", ".txt");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        command.addAll(ProbedMain.arguments(stallFile, main));
        command.addAll(args);
        process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        Thread reader = new Thread(this::read, "child-" + what + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String text;
            while ((text = in.readLine()) != null) {
                synchronized (this) {
                    lines.add(new Line(text, System.nanoTime()));
                    notifyAll();
                }
            }
        } catch (IOException e) {
            // The process ended.
        }
        synchronized (this) {
            ended = true;
            notifyAll();
        }
    }

    /**
     * Waits for the first line that starts with {@code prefix}, at most {@code timeoutMillis}; fails at once when the
     * child's output ends without one.
     */
    synchronized Line await(String prefix, long timeoutMillis) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            for (Line line : lines) {
                if (line.text().startsWith(prefix)) {
                    return line;
                }
            }
            long left = end - System.currentTimeMillis();
            if (left <= 0 || ended) {
                throw new AssertionError("The child " + what + " printed no '" + prefix + "' line "
                        + (ended ? "before its output ended" : "within " + timeoutMillis + " ms") + "; it printed "
                        + lines.stream().map(Line::text).distinct().toList());
            }
            wait(left);
        }
    }

    synchronized List<Line> lines() {
        return List.copyOf(lines);
    }

    /**
     * The lines read after {@code nanos}, without a line that the child marked as asked before its stop (it answered,
     * was stopped before printing, and printed after whatever happened while it was stopped).
     */
    List<Line> answersAfter(long nanos) {
        List<Line> lines = lines();
        List<Line> answers = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Line line = lines.get(i);
            boolean askedBeforeTheStop =
                    i + 1 < lines.size() && lines.get(i + 1).text().equals(STOPPED_WHILE_ASKING);
            if (line.atNanos() > nanos && !askedBeforeTheStop) {
                answers.add(line);
            }
        }
        return answers;
    }

    long pid() {
        return process.pid();
    }

    /** How late the child ran, as its stall probe reported: for a {@code TimingBound}, or to tell why it was late. */
    StallSource stalls() {
        return StallSource.reportedIn(stallFile);
    }

    /** SIGKILL: the child dies holding whatever it held. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    void pause() throws Exception {
        signal("STOP");
    }

    void resume() throws Exception {
        signal("CONT");
    }

    private void signal(String signal) throws Exception {
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .inheritIO()
                .start()
                .waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            resume();
            kill();
        }
        Files.deleteIfExists(stallFile);
    }
}
