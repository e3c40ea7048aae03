package io.herald.cli.deliveries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.herald.cli.CliFailure;
import io.herald.common.json.Json;
import io.herald.runtime.ops.OpsEndpoint;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** The human forms of list and show, and where the API is found. */
class DeliveriesOutputTest {

  private static final String NL = System.lineSeparator();

  @Test
  void shouldPadEachColumnToItsWidestCell() throws Exception {
    String table =
        ListDeliveries.table(
            Json.mapper()
                .readTree(
                    "[{\"id\":\"d-1\",\"state\":\"UNCERTAIN\",\"destination\":\"dest-a\","
                        + "\"tenant\":\"t\",\"articleId\":\"a\",\"revisionId\":\"r\","
                        + "\"attempts\":2,\"updatedAt\":\"2026-01-01T00:00:00Z\"}]"));
    assertThat(table)
        .isEqualTo(
            "ID   STATE      DESTINATION  KEY    ATTEMPTS  UPDATED"
                + NL
                + "d-1  UNCERTAIN  dest-a       t/a/r  2         2026-01-01T00:00:00Z"
                + NL
                + "1 delivery"
                + NL);
  }

  @Test
  void shouldSaySoWhenTheListIsEmpty() throws Exception {
    assertThat(ListDeliveries.table(Json.mapper().readTree("[]")))
        .endsWith(NL + "0 deliveries" + NL);
  }

  @Test
  void shouldShowFieldsInTheApisOrderWithADashForNull() throws Exception {
    assertThat(ShowDelivery.fields(Json.mapper().readTree("{\"id\":\"d-1\",\"remoteId\":null}")))
        .isEqualTo("id        d-1" + NL + "remoteId  -" + NL);
  }

  @Test
  void shouldReachAWildcardBindAddressOnThisHost() {
    assertThat(DeliveriesCommand.baseUri(new OpsEndpoint("0.0.0.0", 8083)))
        .isEqualTo(URI.create("http://127.0.0.1:8083"));
    assertThat(DeliveriesCommand.baseUri(new OpsEndpoint("::1", 8083)))
        .isEqualTo(URI.create("http://[::1]:8083"));
    assertThat(DeliveriesCommand.baseUri(new OpsEndpoint("consumer", 9000)))
        .isEqualTo(URI.create("http://consumer:9000"));
  }

  @Test
  void shouldRefuseAnyFreePortAsTheApisAddress() {
    assertThatThrownBy(() -> DeliveriesCommand.baseUri(new OpsEndpoint("127.0.0.1", 0)))
        .isInstanceOf(CliFailure.class)
        .hasMessageContaining("consumer.ops.port=0")
        .hasMessageContaining("--consumer-url");
  }
}
