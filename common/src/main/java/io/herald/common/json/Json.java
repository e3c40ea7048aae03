package io.herald.common.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;

/**
 * The one JSON mapper every Herald process uses for untrusted input and for the event contract.
 *
 * <p>Strict on purpose: duplicate object keys are rejected (two parsers could otherwise disagree on
 * which value wins, and a payload hash would not describe what was acted on), nesting depth and
 * sizes are bounded (a hostile body cannot exhaust the stack or the heap), and scalars are never
 * coerced (a number is not a string, an empty string is not null, a float is not an int).
 *
 * <p>Thread-safe: the returned mapper is shared and must not be reconfigured by callers; use {@code
 * mapper().copy()} if a variant is needed.
 */
public final class Json {

  /** Deepest object/array nesting accepted; real articles are far shallower. */
  public static final int MAX_NESTING_DEPTH = 64;

  /** Longest single string value accepted (characters). */
  public static final int MAX_STRING_LENGTH = 5_000_000;

  /** Largest document accepted (bytes/characters read). */
  public static final long MAX_DOCUMENT_LENGTH = 16L * 1024 * 1024;

  /** Longest number literal accepted (digits). */
  public static final int MAX_NUMBER_LENGTH = 100;

  private static final ObjectMapper MAPPER = build();

  private Json() {}

  /** The shared strict mapper. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  private static ObjectMapper build() {
    JsonFactory factory =
        JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_NESTING_DEPTH)
                    .maxStringLength(MAX_STRING_LENGTH)
                    .maxDocumentLength(MAX_DOCUMENT_LENGTH)
                    .maxNumberLength(MAX_NUMBER_LENGTH)
                    .build())
            .build();
    JsonMapper mapper =
        JsonMapper.builder(factory)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .build();
    // Scalars keep their JSON type: no number or boolean is read as a string, no string as a
    // number, no empty string as null or as an empty object.
    mapper
        .coercionConfigFor(LogicalType.Textual)
        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    mapper
        .coercionConfigDefaults()
        .setAcceptBlankAsEmpty(false)
        .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
    return mapper;
  }
}
