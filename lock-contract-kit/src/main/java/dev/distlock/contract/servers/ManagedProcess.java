package dev.distlock.contract.servers;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A server that a test runs as a child process (redis-server, etcd) on a loopback port, so
 * the test can kill, pause and restart it. Output goes to a log file in the work directory.
 */
public final class ManagedProcess implements AutoCloseable {

    private final String name;
    private final List<String> command;
    private final Path workDir;
    private final int port;
    private final Duration startTimeout;
    private Process process;

    private ManagedProcess(String name, List<String> command, Path workDir, int port, Duration startTimeout) {
        this.name = name;
        this.command = List.copyOf(command);
        this.workDir = workDir;
        this.port = port;
        this.startTimeout = startTimeout;
    }

    /** Starts {@code command} in {@code workDir} and waits until it accepts connections on {@code port}. */
    public static ManagedProcess start(
            String name, List<String> command, Path workDir, int port, Duration startTimeout) {
        ManagedProcess managed = new ManagedProcess(name, command, workDir, port, startTimeout);
        managed.startProcess();
        return managed;
    }

    /** The executable on the PATH, in /usr/sbin or /usr/bin, if installed. */
    public static Optional<Path> findExecutable(String executable) {
        String path =
                System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/sbin:/usr/bin:/usr/local/bin";
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, executable);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    public int port() {
        return port;
    }

    public String address() {
        return "127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** SIGKILL. The server dies without a chance to save or say goodbye. */
    public void kill() {
        if (process != null) {
            process.destroyForcibly();
            waitForExit();
        }
    }

    /** SIGTERM and wait. */
    public void stop() {
        if (process != null) {
            process.destroy();
            waitForExit();
        }
    }

    /** Starts the same command again (same port, same work directory). */
    public void restart() {
        kill();
        startProcess();
    }

    /** SIGSTOP. The process freezes, connections stay open but nothing answers. */
    public void pause() {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() {
        signal("CONT");
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            resume();
            kill();
        }
    }

    private void startProcess() {
        try {
            Files.createDirectories(workDir);
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(
                            workDir.resolve(name + ".log").toFile()));
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start " + name + ": " + command, e);
        }
        long deadline = System.nanoTime() + startTimeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited at start with code " + process.exitValue() + "; see "
                        + workDir.resolve(name + ".log"));
            }
            if (accepts(port)) {
                return;
            }
            sleep(20);
        }
        kill();
        throw new IllegalStateException(name + " did not accept connections on port " + port + " within " + startTimeout
                + "; see " + workDir.resolve(name + ".log"));
    }

    private void waitForExit() {
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " (pid " + process.pid() + ") did not exit within 10s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void signal(String signal) {
        if (process == null || !process.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .inheritIO()
                    .start();
            kill.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not send SIG" + signal + " to " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** True when something accepts TCP connections on the loopback port. */
    public static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a server to start", e);
        }
    }
}
