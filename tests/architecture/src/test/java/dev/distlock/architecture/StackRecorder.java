package dev.distlock.architecture;

import dev.distlock.core.spi.LockBackend;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Records the distlock frames on the calling thread's stack when a backend is called: before the locked method's
 * body ran (the take) and after it (the release). Frames of this test module, generated proxies and lambdas'
 * synthetic classes are left out; a lambda's body counts as the class that wrote it.
 */
final class StackRecorder {

    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private final Thread caller = Thread.currentThread();
    private volatile boolean bodyReached;
    private List<StackWalker.StackFrame> atTake;
    private List<StackWalker.StackFrame> atRelease;
    private List<String> metAtTake;

    /** Forgets what was recorded, for the next call. */
    synchronized void reset() {
        bodyReached = false;
        atTake = null;
        atRelease = null;
        metAtTake = null;
    }

    void methodBodyReached() {
        bodyReached = true;
    }

    boolean bodyReached() {
        return bodyReached;
    }

    /** Called by the recording backend: keeps the stack of the first take before the body and release after it. */
    synchronized void backendCalled(String operation) {
        List<StackWalker.StackFrame> frames =
                WALKER.walk(stack -> stack.filter(StackRecorder::ours).toList());
        if (frames.isEmpty()) {
            return; // a background thread (renewal, subscription): not the caller's path
        }
        if (!bodyReached && atTake == null && operation.equals("tryAcquire")) {
            atTake = frames;
            metAtTake = ClassesMet.met();
        } else if (bodyReached && atRelease == null && operation.equals("release")) {
            atRelease = frames;
        }
    }

    /** The distlock classes whose code ran on the caller's thread from the call until the backend was asked. */
    synchronized List<String> metUntilTake() {
        assertRecorded(atTake, "take");
        return metAtTake;
    }

    /** The distinct distlock classes on the stack at the take, outermost first. */
    synchronized List<String> acquire() {
        assertRecorded(atTake, "take");
        List<String> classes = new ArrayList<>(atTake.stream()
                .map(frame -> topLevel(frame.getClassName()))
                .collect(Collectors.toCollection(LinkedHashSet::new)));
        java.util.Collections.reverse(classes);
        return classes;
    }

    /**
     * The calls from the release of the hold (the handle's {@code close} or the lock's {@code unlock} in lock-core's
     * engine) to the backend's {@code release}: one hop per distlock frame from there down to the backend.
     */
    synchronized List<String> releaseHops() {
        return releaseFrames().stream()
                .takeWhile(frame -> !LockBackend.class.isAssignableFrom(frame.getDeclaringClass()))
                .map(StackRecorder::describe)
                .toList();
    }

    /** The distlock frames from the release of the hold down to the call into the server's client. */
    synchronized List<String> releaseToClient() {
        return releaseFrames().stream().map(StackRecorder::describe).toList();
    }

    private List<StackWalker.StackFrame> releaseFrames() {
        assertRecorded(atRelease, "release");
        List<StackWalker.StackFrame> frames = new ArrayList<>();
        for (StackWalker.StackFrame frame : atRelease) {
            frames.add(0, frame);
            if (frame.getClassName().startsWith("dev.distlock.core.engine.") && isEngineEntry(frame)) {
                break;
            }
        }
        return frames;
    }

    private static String describe(StackWalker.StackFrame frame) {
        return simpleName(frame.getClassName()) + "." + frame.getMethodName();
    }

    private static boolean isEngineEntry(StackWalker.StackFrame frame) {
        return frame.getMethodName().equals("close") || frame.getMethodName().equals("unlock");
    }

    private static void assertRecorded(List<StackWalker.StackFrame> frames, String what) {
        if (frames == null) {
            throw new AssertionError("no backend call was recorded for the " + what);
        }
    }

    private static boolean ours(StackWalker.StackFrame frame) {
        String name = frame.getClassName();
        return name.startsWith("dev.distlock.")
                && !name.startsWith("dev.distlock.architecture.")
                && !name.contains("$$");
    }

    private static String topLevel(String className) {
        int nested = className.indexOf('$');
        return simpleName(nested < 0 ? className : className.substring(0, nested));
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}
