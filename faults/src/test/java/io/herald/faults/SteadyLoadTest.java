package io.herald.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.demo.Showcase.Request;
import java.util.List;
import org.junit.jupiter.api.Test;

class SteadyLoadTest {

  private static final String ORIGINAL =
      "{\"articleId\":\"a-1\",\"revisionId\":\"r-1\",\"destination\":\"dest-a\",\"content\":{\"t\":1}}";
  private static final String OTHER =
      "{\"articleId\":\"a-1\",\"revisionId\":\"r-1\",\"destination\":\"dest-a\",\"content\":{\"t\":2}}";

  private static SteadyLoad.Answer answer(String body, int expected, int status) {
    return new SteadyLoad.Answer(new Request("t1", body, expected), status, null, null);
  }

  @Test
  void shouldAcceptTheOrderTheRequestsWereMeantToArriveIn() {
    assertThat(
            SteadyLoad.unexpected(
                List.of(
                    answer(ORIGINAL, 201, 201),
                    answer(ORIGINAL, 200, 200),
                    answer(OTHER, 409, 409))))
        .isZero();
  }

  @Test
  void shouldAcceptAReplayOrAConflictThatCommittedBeforeItsOriginal() {
    assertThat(
            SteadyLoad.unexpected(
                List.of(
                    answer(ORIGINAL, 201, 200),
                    answer(ORIGINAL, 200, 201),
                    answer(OTHER, 409, 409))))
        .isZero();
    assertThat(
            SteadyLoad.unexpected(
                List.of(
                    answer(ORIGINAL, 201, 409),
                    answer(ORIGINAL, 200, 409),
                    answer(OTHER, 409, 201))))
        .isZero();
  }

  @Test
  void shouldAcceptAnIntentWhoseCreatingAnswerWasLost() {
    assertThat(SteadyLoad.unexpected(List.of(answer(ORIGINAL, 201, 200), answer(OTHER, 409, 409))))
        .isZero();
  }

  @Test
  void shouldCountWhatNoRightWriterAnswers() {
    // Two creations of one intent.
    assertThat(
            SteadyLoad.unexpected(List.of(answer(ORIGINAL, 201, 201), answer(ORIGINAL, 200, 201))))
        .isEqualTo(1);
    // A conflict for the acknowledged content.
    assertThat(
            SteadyLoad.unexpected(List.of(answer(ORIGINAL, 201, 201), answer(ORIGINAL, 200, 409))))
        .isEqualTo(1);
    // Both contents acknowledged.
    assertThat(SteadyLoad.unexpected(List.of(answer(ORIGINAL, 201, 201), answer(OTHER, 409, 200))))
        .isEqualTo(1);
    // A server error.
    assertThat(SteadyLoad.unexpected(List.of(answer(ORIGINAL, 201, 500)))).isEqualTo(1);
  }
}
