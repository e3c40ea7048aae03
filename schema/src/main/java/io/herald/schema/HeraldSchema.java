package io.herald.schema;

/**
 * The PostgreSQL schemas Herald owns. Each service migrates only its own schema; both schemas may
 * live in one database (the default) or in separate databases, each with its own relay.
 */
public enum HeraldSchema {
  WRITER("writer"),
  CONSUMER("consumer");

  private final String schemaName;

  HeraldSchema(String schemaName) {
    this.schemaName = schemaName;
  }

  /** The PostgreSQL schema name, also the Flyway location under {@code db/migration/}. */
  public String schemaName() {
    return schemaName;
  }
}
