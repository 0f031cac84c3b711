package dev.distlock.vthreads;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * The {@code jdk.VirtualThreadPinned} events of a piece of work, sorted by what pinned the carrier.
 * JFR records such an event only when a virtual thread blocks (parks, enters a contended monitor,
 * waits) while it cannot leave its carrier: a short synchronized section that never blocks costs
 * nothing and is never reported. Before JDK 24 a held monitor pins; from JDK 24 on only a native
 * or VM frame (a class being loaded or initialised, a native call) does.
 *
 * <p>A pinned wait counts against the code under test when that code made the blocking call. It
 * does not when the thread was loading or initialising a class the code used for the first time:
 * the VM loads and initialises classes from VM frames, so a first use that meets another thread
 * doing the same pins, once per class, whatever the code does. Such a wait shows either class
 * loader or {@code <clinit>} frames above the code's topmost frame, or, from JDK 24 on, a
 * contended monitor enter on a stack without a native frame or initialiser: JDK 24 lets a
 * virtual thread leave its carrier on any monitor it enters, so only the VM's class
 * initialisation lock can pin there.
 */
final class PinnedWaits {

    /** The events JFR recorded while {@code work} ran. */
    static <T> Recorded<T> record(Callable<T> work) throws Exception {
        Path jfr = Files.createTempFile("distlock-vthreads-", ".jfr");
        try {
            T result;
            try (Recording recording = new Recording()) {
                recording
                        .enable("jdk.VirtualThreadPinned")
                        .withThreshold(Duration.ZERO)
                        .withStackTrace();
                recording.start();
                result = work.call();
                recording.stop();
                recording.dump(jfr);
            }
            List<RecordedEvent> pinned = new ArrayList<>();
            for (RecordedEvent event : RecordingFile.readAllEvents(jfr)) {
                if (event.getEventType().getName().equals("jdk.VirtualThreadPinned")) {
                    pinned.add(event);
                }
            }
            return new Recorded<>(result, pinned);
        } finally {
            Files.deleteIfExists(jfr);
        }
    }

    /** What {@code work} returned, and the pinned events recorded while it ran. */
    record Recorded<T>(T result, List<RecordedEvent> events) {

        /**
         * The pinned waits made by code that {@code ours} accepts (by class name), each described
         * with its reason and stack; waits in the class loader are left out.
         */
        List<String> waitsIn(Predicate<String> ours) {
            List<String> waits = new ArrayList<>();
            for (RecordedEvent event : events) {
                describeIfOurs(event, ours, waits);
            }
            return waits;
        }

        /** Pinned waits that happened inside the class loader, under a frame {@code ours} accepts. */
        int classLoadingIn(Predicate<String> ours) {
            int count = 0;
            for (RecordedEvent event : events) {
                List<RecordedFrame> frames = frames(event);
                int first = firstOurs(frames, ours);
                if (first >= 0 && loadingClass(event, frames, first)) {
                    count++;
                }
            }
            return count;
        }
    }

    private static void describeIfOurs(RecordedEvent event, Predicate<String> ours, List<String> waits) {
        List<RecordedFrame> frames = frames(event);
        int first = firstOurs(frames, ours);
        if (first < 0 || loadingClass(event, frames, first)) {
            return;
        }
        StringBuilder text = new StringBuilder(name(frames.get(first)));
        if (event.hasField("pinnedReason")) {
            text.append(" (").append(event.getString("pinnedReason")).append(", ");
            text.append(event.getString("blockingOperation")).append(')');
        }
        for (RecordedFrame frame : frames) {
            text.append("\n\tat ").append(name(frame)).append(':').append(frame.getLineNumber());
        }
        waits.add(text.toString());
    }

    private static List<RecordedFrame> frames(RecordedEvent event) {
        return event.getStackTrace() == null ? List.of() : event.getStackTrace().getFrames();
    }

    /** The topmost frame of the code under test, or -1 when none is on the stack. */
    private static int firstOurs(List<RecordedFrame> frames, Predicate<String> ours) {
        for (int i = 0; i < frames.size(); i++) {
            if (ours.test(frames.get(i).getMethod().getType().getName())) {
                return i;
            }
        }
        return -1;
    }

    /** True when the thread blocked loading or initialising a class, not in a wait of the code. */
    private static boolean loadingClass(RecordedEvent event, List<RecordedFrame> frames, int firstOurs) {
        for (RecordedFrame frame : frames.subList(0, firstOurs)) {
            String type = frame.getMethod().getType().getName();
            String method = frame.getMethod().getName();
            if ((type.equals("java.lang.ClassLoader") && method.startsWith("loadClass"))
                    || type.startsWith("jdk.internal.loader.")
                    || method.equals("<clinit>")) {
                return true;
            }
        }
        return Runtime.version().feature() >= 24
                && event.hasField("blockingOperation")
                && String.valueOf(event.getString("blockingOperation"))
                        .toLowerCase(Locale.ROOT)
                        .contains("monitor enter")
                && frames.stream().noneMatch(PinnedWaits::pinsByItself);
    }

    /** A frame that pins a virtual thread on every JDK: a native method or a class initialiser. */
    private static boolean pinsByItself(RecordedFrame frame) {
        boolean continuationEntry = frame.getMethod().getType().getName().equals("jdk.internal.vm.Continuation");
        return (frame.getType().equals("Native") && !continuationEntry)
                || frame.getMethod().getName().equals("<clinit>");
    }

    private static String name(RecordedFrame frame) {
        return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
    }

    private PinnedWaits() {}
}
