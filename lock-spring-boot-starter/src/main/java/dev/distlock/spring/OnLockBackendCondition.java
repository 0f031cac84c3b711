package dev.distlock.spring;

import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/** The condition behind {@link ConditionalOnLockBackend}. */
final class OnLockBackendCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnLockBackend.class.getName());
        String wanted = (String) attributes.get("value");
        LockBackendSelection selection = select(context);
        ConditionMessage.Builder message = ConditionMessage.forCondition(ConditionalOnLockBackend.class, wanted);
        if (selection.selected(wanted)) {
            return ConditionOutcome.match(message.because("it is the selected lock backend"));
        }
        return ConditionOutcome.noMatch(message.because(
                selection.backend() != null
                        ? "the selected lock backend is " + selection.backend()
                        : selection.problem()));
    }

    static LockBackendSelection select(ConditionContext context) {
        return LockBackendSelection.select(
                context.getEnvironment().getProperty(LockBackendSelection.PROPERTY),
                name -> ClassUtils.isPresent(name, context.getClassLoader()));
    }
}
