package dev.distlock.leadertests;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A {@link CandidateProcess} started by a test: its output lines with the time each was read. */
final class ChildCandidate implements AutoCloseable {

    /** One line of the child's output and when this JVM read it. */
    record Line(String text, long atNanos) {}

    private final Process process;
    private final List<Line> lines = new ArrayList<>();

    ChildCandidate(String name, BackendClients clients) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                CandidateProcess.class.getName(),
                name,
                Long.toString(clients.lease().toMillis())));
        command.addAll(clients.spec());
        process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        Thread reader = new Thread(this::read, "child-candidate-output");
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
    }

    /** Waits for the first line that starts with {@code prefix}, at most {@code timeoutMillis}. */
    synchronized Line await(String prefix, long timeoutMillis) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            for (Line line : lines) {
                if (line.text().startsWith(prefix)) {
                    return line;
                }
            }
            long left = end - System.currentTimeMillis();
            if (left <= 0) {
                throw new AssertionError("The child candidate printed no '" + prefix + "' line within "
                        + timeoutMillis + " ms; it printed "
                        + lines.stream().map(Line::text).distinct().toList());
            }
            wait(left);
        }
    }

    synchronized List<Line> lines() {
        return List.copyOf(lines);
    }

    /** SIGKILL: the candidate dies holding whatever it held. */
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
    }
}
