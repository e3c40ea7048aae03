package io.herald.consumer.policy;

/**
 * What an operator may decide about a delivery nobody could settle automatically. Which states each
 * applies to is {@link DeliveryPolicy#allowedFrom(OperatorAction)}.
 */
public enum OperatorAction {
  /** The article exists at the destination (the operator gives its remote id). */
  MARK_PUBLISHED,
  /** Nothing was created: send again, attempts start over. */
  RETRY,
  /** Give the delivery up: final, releases later revisions. */
  ABANDON
}
