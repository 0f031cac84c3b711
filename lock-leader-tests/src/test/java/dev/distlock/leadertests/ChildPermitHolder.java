package dev.distlock.leadertests;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** A {@link PermitHolderProcess} started by a test. */
final class ChildPermitHolder extends ChildJvm {

    /** What the child printed on its grant: {@code GRANTED <slot> <token>}. */
    record Grant(int slot, long token) {}

    ChildPermitHolder(String name, int permits, String permitLease, BackendClients clients) throws IOException {
        super(PermitHolderProcess.class, arguments(name, permits, permitLease, clients));
    }

    private static List<String> arguments(String name, int permits, String permitLease, BackendClients clients) {
        List<String> args = new ArrayList<>(List.of(
                name, Integer.toString(permits), Long.toString(clients.lease().toMillis()), permitLease));
        args.addAll(clients.spec());
        return args;
    }

    /** Waits for the child's grant, and shows the backend errors after which it asked again. */
    Grant awaitGrant(long timeoutMillis) throws InterruptedException {
        String[] words = await("GRANTED", timeoutMillis).text().split(" ");
        lines().stream()
                .filter(line -> line.text().startsWith("FAILED"))
                .forEach(line -> System.out.println("The permit holder asked again after: " + line.text()));
        return new Grant(Integer.parseInt(words[1]), Long.parseLong(words[2]));
    }
}
