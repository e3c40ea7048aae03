package io.herald.consumer.inbox;

import io.herald.common.event.PublicationRequested;
import java.util.UUID;

/**
 * A {@code herald.publication.events} record the decoder accepted: one publication intent, with its
 * message id (the inbox key) and trace context (null when absent or invalid).
 */
record Received(
    UUID messageId, PublicationRequested request, String traceParent, String traceState) {}
