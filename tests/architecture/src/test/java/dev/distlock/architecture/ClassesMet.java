package dev.distlock.architecture;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.not;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;

/**
 * Every distlock class whose code runs on one thread while it records: each method and constructor of the library's
 * classes tells this class when it is entered (added at run time by a Java agent). It counts what a reader of one
 * call has to follow, whether or not the class is still on the stack when the server is asked.
 */
public final class ClassesMet {

    private static final Set<String> MET = ConcurrentHashMap.newKeySet();
    private static volatile Thread recording;
    private static boolean installed;

    private ClassesMet() {}

    /** Adds the entry hook to the library's classes, loaded or not; once per JVM. */
    static synchronized void install() {
        if (installed) {
            return;
        }
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .type(nameStartsWith("dev.distlock.").and(not(nameStartsWith("dev.distlock.architecture."))))
                .transform((builder, type, loader, module, domain) -> builder.visit(
                        Advice.to(Entry.class).on(isMethod().or(isConstructor()).and(not(isAbstract())))))
                .installOn(ByteBuddyAgent.install());
        installed = true;
    }

    /** Starts recording the calling thread, forgetting what was met before. */
    static void record() {
        MET.clear();
        recording = Thread.currentThread();
    }

    /** The top-level classes met since {@link #record()}, by simple name; recording goes on. */
    static List<String> met() {
        Set<String> classes = new TreeSet<>();
        MET.forEach(name -> classes.add(topLevel(name)));
        return new ArrayList<>(classes);
    }

    static void stop() {
        recording = null;
    }

    /** Called on entry of every instrumented method. */
    public static void entered(String className) {
        if (Thread.currentThread() == recording) {
            MET.add(className);
        }
    }

    private static String topLevel(String className) {
        String simple = className.substring(className.lastIndexOf('.') + 1);
        int nested = simple.indexOf('$');
        return nested < 0 ? simple : simple.substring(0, nested);
    }

    /** The advice inlined at each method's entry. */
    public static final class Entry {

        private Entry() {}

        @Advice.OnMethodEnter
        static void enter(@Advice.Origin("#t") String type) {
            ClassesMet.entered(type);
        }
    }
}
