package dev.distlock.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;
import java.time.Duration;
import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.Test;

class LockedMethodGateTest {

    private final LockedMethodGate gate = new LockedMethodGate();

    @Test
    void aClosedGateRefusesNewCallsButLetsACallInsideARunningOneThrough() throws Throwable {
        Object nested = gate.invoke(call(() -> {
            gate.close();
            assertThat(gate.running()).isEqualTo(1);
            return gate.invoke(call(() -> "nested ran"));
        }));
        assertThat(nested).isEqualTo("nested ran");
        assertThat(gate.running()).isZero();
        assertThatThrownBy(() -> gate.invoke(call(() -> "new call")))
                .isInstanceOf(LockingStoppedException.class)
                .hasMessageContaining("LockedMethodGateTest.toString()")
                .hasMessageContaining("Retry the call on another instance");
        assertThat(gate.awaitIdle(Duration.ZERO)).isTrue();
    }

    @Test
    void anOpenedGateLetsCallsStartAgain() throws Throwable {
        gate.close();
        gate.open();
        assertThat(gate.invoke(call(() -> "ran"))).isEqualTo("ran");
    }

    private interface Body {
        Object run() throws Throwable;
    }

    /** An invocation of {@code toString()} on this test whose body is {@code body}. */
    private MethodInvocation call(Body body) throws NoSuchMethodException {
        Method method = LockedMethodGateTest.class.getMethod("toString");
        return new MethodInvocation() {
            @Override
            public Method getMethod() {
                return method;
            }

            @Override
            public Object[] getArguments() {
                return new Object[0];
            }

            @Override
            public Object proceed() throws Throwable {
                return body.run();
            }

            @Override
            public Object getThis() {
                return LockedMethodGateTest.this;
            }

            @Override
            public AccessibleObject getStaticPart() {
                return method;
            }
        };
    }
}
