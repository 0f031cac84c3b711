package dev.distlock.spring.backend;

import dev.distlock.spring.LockBackendType;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** The condition behind {@link ConditionalOnLockBackend}. */
final class OnLockBackendCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnLockBackend.class.getName());
        LockBackendType wanted = (LockBackendType) attributes.get("value");
        LockBackendSelection selection =
                LockBackendSelection.select(context.getEnvironment(), context.getClassLoader());
        ConditionMessage.Builder message = ConditionMessage.forCondition(ConditionalOnLockBackend.class, wanted);
        if (selection.selected(wanted)) {
            return ConditionOutcome.match(message.because("it is the selected lock backend"));
        }
        return ConditionOutcome.noMatch(message.because(
                selection.backend() != null
                        ? "the selected lock backend is " + selection.backend()
                        : selection.problem()));
    }
}
