package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SendQueueTest {

    /** The batches written, in order. */
    private final List<List<AsyncCommand<byte[], byte[], Object>>> written =
            Collections.synchronizedList(new ArrayList<>());

    /** The queue's clock: time moves only when a test moves it, so no hold limit runs out by chance. */
    private final AtomicLong clock = new AtomicLong();

    private final SendQueue queue = new SendQueue(written::add, clock::get);

    @Test
    void loneCommandIsWrittenAtOnce() {
        AsyncCommand<byte[], byte[], Object> first = queue.send(command(1));
        reply(first);
        AsyncCommand<byte[], byte[], Object> second = queue.send(command(2));

        assertThat(written).containsExactly(List.of(first), List.of(second));
    }

    @Test
    void commandsSentWhileOneIsInFlightGoOutTogetherInOrderWhenItsReplyComes() {
        AsyncCommand<byte[], byte[], Object> inFlight = queue.send(command(0));
        List<AsyncCommand<byte[], byte[], Object>> held = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            held.add(queue.send(command(i)));
        }
        assertThat(written).as("held back while a reply is awaited").containsExactly(List.of(inFlight));

        reply(inFlight);

        assertThat(written).containsExactly(List.of(inFlight), held);
    }

    @Test
    void failedOrCancelledCommandsLeaveTheFlightToo() {
        AsyncCommand<byte[], byte[], Object> failed = queue.send(command(1));
        AsyncCommand<byte[], byte[], Object> held = queue.send(command(2));
        failed.completeExceptionally(new IllegalStateException("connection lost"));
        assertThat(written).containsExactly(List.of(failed), List.of(held));

        held.cancel(true);
        AsyncCommand<byte[], byte[], Object> next = queue.send(command(3));
        assertThat(written).last().isEqualTo(List.of(next));
    }

    @Test
    void commandSentNowGoesAtOnceWithTheHeldOnesBeforeIt() {
        AsyncCommand<byte[], byte[], Object> inFlight = queue.send(command(0));
        AsyncCommand<byte[], byte[], Object> held = queue.send(command(1));

        AsyncCommand<byte[], byte[], Object> now = queue.sendNow(command(2));

        assertThat(written).containsExactly(List.of(inFlight), List.of(held, now));
    }

    /**
     * A command sent now while another thread is writing (and commands are in flight) must be
     * written by that thread before it lets go, not left for the next reply.
     */
    @Test
    void commandSentNowWhileAnotherThreadWritesIsNotHeldBack() {
        List<AsyncCommand<byte[], byte[], Object>> urgent = new ArrayList<>();
        SendQueue[] busy = new SendQueue[1];
        busy[0] = new SendQueue(
                batch -> {
                    written.add(batch);
                    if (urgent.isEmpty()) {
                        onAnotherThread(() -> urgent.add(busy[0].sendNow(command(2))));
                    }
                },
                clock::get);
        busy[0].send(command(1)); // stays in flight

        assertThat(written).hasSize(2);
        assertThat(written.get(1)).containsExactlyElementsOf(urgent);
    }

    @Test
    void commandIsNotHeldBehindABatchThatHasBeenOutLongerThanTheLimit() {
        queue.send(command(1)); // never answered
        AsyncCommand<byte[], byte[], Object> held = queue.send(command(2));
        assertThat(written).hasSize(1);

        clock.addAndGet(SendQueue.MAX_HOLD_NANOS);
        AsyncCommand<byte[], byte[], Object> atTheLimit = queue.send(command(3));
        assertThat(written).hasSize(1);

        clock.addAndGet(1);
        AsyncCommand<byte[], byte[], Object> late = queue.send(command(4));

        assertThat(written).hasSize(2);
        assertThat(written.get(1)).containsExactly(held, atTheLimit, late);
    }

    @Test
    void sendWaitingWritesWhatWaitsWhateverIsInFlight() {
        queue.send(command(1)); // never answered
        AsyncCommand<byte[], byte[], Object> held = queue.send(command(2));

        queue.sendWaiting();

        assertThat(written).hasSize(2);
        assertThat(written.get(1)).containsExactly(held);
    }

    /**
     * A batch that fails as it is written (a connection that rejects commands while it is down)
     * leaves nothing in flight; a command another thread sent meanwhile found the writing thread
     * busy and must still go out, written by that thread before it lets go.
     */
    @Test
    void commandSentWhileABatchFailsAsItIsWrittenStillGoesOut() {
        List<AsyncCommand<byte[], byte[], Object>> second = new ArrayList<>();
        SendQueue[] rejecting = new SendQueue[1];
        rejecting[0] = new SendQueue(
                batch -> {
                    written.add(batch);
                    batch.forEach(command -> command.completeExceptionally(new IllegalStateException("not connected")));
                    if (second.isEmpty()) {
                        onAnotherThread(() -> second.add(rejecting[0].send(command(2))));
                    }
                },
                clock::get);
        rejecting[0].send(command(1));
        assertThat(written).hasSize(2);
        assertThat(written.get(1)).containsExactlyElementsOf(second);
    }

    /**
     * Many threads send while replies come back on another thread, as on a connection: every
     * command must be written exactly once, each thread's in its order, and every reply must come,
     * with none left waiting in the queue. A queue that lost a command added while another thread
     * was writing would leave its sender waiting here.
     */
    @Test
    void concurrentSendersAllGetRepliesInTheirOrder() throws Exception {
        int threads = 8;
        int perThread = 20_000;
        BlockingQueue<List<AsyncCommand<byte[], byte[], Object>>> wire = new LinkedBlockingQueue<>();
        List<long[]> seen = Collections.synchronizedList(new ArrayList<>());
        SendQueue connection = new SendQueue(batch -> {
            for (AsyncCommand<byte[], byte[], Object> command : batch) {
                seen.add(new long[] {threadOf(command), numberOf(command)});
            }
            wire.add(batch);
        });
        ExecutorService server = Executors.newSingleThreadExecutor();
        server.submit(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                for (AsyncCommand<byte[], byte[], Object> command : wire.take()) {
                    command.complete(numberOf(command));
                }
            }
            return null;
        });
        AtomicInteger unanswered = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(threads);
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                Thread sender = new Thread(() -> {
                    for (int i = 0; i < perThread; i += 2) {
                        // two at a time, as an abandoned attempt and the release that follows it
                        AsyncCommand<byte[], byte[], Object> first = connection.send(command(thread, i));
                        AsyncCommand<byte[], byte[], Object> second = connection.send(command(thread, i + 1));
                        for (AsyncCommand<byte[], byte[], Object> sent : List.of(first, second)) {
                            try {
                                sent.get(5, TimeUnit.SECONDS);
                            } catch (Exception e) {
                                unanswered.incrementAndGet();
                                connection.sendWaiting();
                            }
                        }
                    }
                    done.countDown();
                });
                sender.start();
            }
            assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            server.shutdownNow();
        }

        assertThat(unanswered).as("commands left waiting in the queue").hasValue(0);
        assertThat(seen).hasSize(threads * perThread);
        long[] next = new long[threads];
        synchronized (seen) {
            for (long[] command : seen) {
                assertThat(command[1]).as("thread %d's order", command[0]).isEqualTo(next[(int) command[0]]++);
            }
        }
    }

    /** Runs {@code action} on a thread of its own and waits for it. */
    private static void onAnotherThread(Runnable action) {
        Thread other = new Thread(action);
        other.start();
        try {
            other.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void reply(AsyncCommand<byte[], byte[], Object> command) {
        command.complete(1L);
    }

    private static AsyncCommand<byte[], byte[], Object> command(long number) {
        return command(0, number);
    }

    /** A command that carries its sender and number as its two arguments. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static AsyncCommand<byte[], byte[], Object> command(long thread, long number) {
        CommandArgs<byte[], byte[]> args =
                new CommandArgs<>(ByteArrayCodec.INSTANCE).add(thread).add(number);
        return new AsyncCommand<>(new Command(CommandType.ECHO, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args));
    }

    private static long threadOf(AsyncCommand<byte[], byte[], Object> command) {
        return argument(command, 0);
    }

    private static long numberOf(AsyncCommand<byte[], byte[], Object> command) {
        return argument(command, 1);
    }

    private static long argument(AsyncCommand<byte[], byte[], Object> command, int index) {
        return Long.parseLong(command.getArgs().toCommandString().split(" ")[index]);
    }
}
