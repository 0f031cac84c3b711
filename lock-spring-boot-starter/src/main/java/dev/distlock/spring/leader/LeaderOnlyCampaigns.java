package dev.distlock.spring.leader;

import java.lang.reflect.Method;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ReflectionUtils;

/**
 * Campaigns for the names of a bean's {@link LeaderOnly} methods as the bean is created, so a scheduled job's first
 * run already leads when the name is free.
 */
final class LeaderOnlyCampaigns implements BeanPostProcessor {

    private final ObjectProvider<LeaderElection> election;
    private final Environment environment;

    LeaderOnlyCampaigns(ObjectProvider<LeaderElection> election, Environment environment) {
        this.election = election;
        this.environment = environment;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof LeaderElection) {
            return bean;
        }
        Class<?> type = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(type, LeaderOnly.class)) {
            return bean;
        }
        ReflectionUtils.doWithMethods(type, this::campaign, method -> !method.isBridge());
        return bean;
    }

    private void campaign(Method method) {
        String name = LeaderOnlyInterceptor.nameOf(method, environment);
        if (name != null) {
            LeaderElection leaders = election.getIfUnique();
            if (leaders != null) {
                leaders.campaign(name);
            }
        }
    }
}
