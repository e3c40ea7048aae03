package io.herald.devstack;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class that runs against the JVM's shared {@link HeraldStack}. The class gets a
 * {@link StackContext} parameter (constructor, {@code @BeforeAll}, {@code @BeforeEach} or test
 * method) holding a fresh database and unique topic, group, publication and slot names:
 *
 * <pre>{@code
 * @HeraldIntegrationTest
 * class OutboxRelayIT {
 *   @Test
 *   void shouldPublishCommittedRow(StackContext stack) {
 *     stack.stack().kafka().createTopic(stack.topic("events"), 3);
 *     ...
 *   }
 * }
 * }</pre>
 */
@Documented
@Inherited
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(HeraldStackExtension.class)
public @interface HeraldIntegrationTest {}
