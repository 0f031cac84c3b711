package dev.distlock.spring.leader;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.leader.CampaignOptions;
import dev.distlock.core.leader.ObserveOptions;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import java.util.LinkedHashSet;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Leader election on the application's {@link LockRegistry}, with {@link LeaderElection}, {@link LeaderObservation}
 * and {@link LeaderOnly} methods. Off with {@code distributed-lock.leadership.enabled=false}.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnSingleCandidate(LockRegistry.class)
@ConditionalOnBooleanProperty(name = "distributed-lock.leadership.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LeadershipProperties.class)
public final class LeadershipAutoConfiguration {

    /** Runs outside {@code @DistributedLock}, so a method that does not lead is skipped before any lock is taken. */
    public static final int ASPECT_ORDER = DistributedLockAutoConfiguration.ASPECT_ORDER - 10;

    @Bean
    @ConditionalOnMissingBean
    LeaderElection leaderElection(
            LockRegistry registry, LeadershipProperties properties, ApplicationEventPublisher publisher) {
        CampaignOptions options = new CampaignOptions(
                        properties.getCheckInterval(), properties.getRejoinDelay(), properties.getRetryDelay())
                .withValue(StringUtils.hasText(properties.getValue()) ? properties.getValue() : null);
        return new LeaderElection(registry, options, publisher, new LinkedHashSet<>(properties.getNames()));
    }

    @Bean
    @ConditionalOnMissingBean
    LeaderObservation leaderObservation(
            LockRegistry registry, LeadershipProperties properties, ApplicationEventPublisher publisher) {
        ObserveOptions options = ObserveOptions.defaults().withPollInterval(properties.getObserveInterval());
        return new LeaderObservation(registry, options, publisher, new LinkedHashSet<>(properties.getObservedNames()));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean(name = "leaderOnlyAdvisor")
    static Advisor leaderOnlyAdvisor(ObjectProvider<LeaderElection> election, Environment environment) {
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                AnnotationMatchingPointcut.forMethodAnnotation(LeaderOnly.class),
                new LeaderOnlyInterceptor(election, environment));
        advisor.setOrder(ASPECT_ORDER);
        return advisor;
    }

    /** Campaigns for every {@link LeaderOnly} name from start-up instead of from its first call. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LeaderOnlyCampaigns leaderOnlyCampaigns(ObjectProvider<LeaderElection> election, Environment environment) {
        return new LeaderOnlyCampaigns(election, environment);
    }
}
