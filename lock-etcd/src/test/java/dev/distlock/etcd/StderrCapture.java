package dev.distlock.etcd;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Copies what is written to {@link System#err} (where slf4j-simple logs) while open. */
final class StderrCapture implements AutoCloseable {

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    StderrCapture() {
        System.setErr(new PrintStream(
                new OutputStream() {
                    @Override
                    public void write(int b) {
                        original.write(b);
                        synchronized (copy) {
                            copy.write(b);
                        }
                    }

                    @Override
                    public void write(byte[] b, int off, int len) {
                        original.write(b, off, len);
                        synchronized (copy) {
                            copy.write(b, off, len);
                        }
                    }
                },
                true,
                StandardCharsets.UTF_8));
    }

    String text() {
        synchronized (copy) {
            return copy.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
