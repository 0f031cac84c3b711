package dev.distlock.leadertests;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** A {@link CandidateProcess} started by a test. */
final class ChildCandidate extends ChildJvm {

    ChildCandidate(String name, BackendClients clients) throws IOException {
        super(CandidateProcess.class, arguments(name, clients));
    }

    private static List<String> arguments(String name, BackendClients clients) {
        List<String> args =
                new ArrayList<>(List.of(name, Long.toString(clients.lease().toMillis())));
        args.addAll(clients.spec());
        return args;
    }
}
