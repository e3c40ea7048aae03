#!/usr/bin/env bash
# Herald's database roles (docs/design.md, "Database roles"): the administrator's one-time step
# before the first migration. Runs herald-roles.sql (idempotent) as the PostgreSQL user psql
# connects as (a superuser: PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD or ~/.pgpass, as for any
# psql), then sets the password of each role from a file or a variable:
#   herald_migrator  MIGRATOR_PASSWORD_FILE or MIGRATOR_PASSWORD
#   herald_writer    WRITER_PASSWORD_FILE   or WRITER_PASSWORD
#   herald_consumer  CONSUMER_PASSWORD_FILE or CONSUMER_PASSWORD
#   herald_relay     RELAY_PASSWORD_FILE    or RELAY_PASSWORD
# A role without either keeps the password it has (none when new: it cannot log in with one).
#
#   PGHOST=db.internal PGUSER=postgres PGDATABASE=herald \
#     WRITER_PASSWORD_FILE=/run/secrets/writer ... ops/postgres/herald-roles.sh
#
# docker-compose.yml mounts this script into the postgres image's /docker-entrypoint-initdb.d, so
# it runs at the database's first start; ROLES_SQL names the SQL file there.
set -euo pipefail
sql=${ROLES_SQL:-$(dirname "$0")/../../schema/src/main/resources/db/roles/herald-roles.sql}
psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet -f "$sql"

for role in migrator writer consumer relay; do
  variable=${role^^}_PASSWORD
  file_variable=${variable}_FILE
  if [[ -n ${!file_variable:-} ]]; then
    password=$(<"${!file_variable}")
  elif [[ -n ${!variable:-} ]]; then
    password=${!variable}
  else
    echo "herald-roles: no $file_variable or $variable: herald_$role keeps its password" >&2
    continue
  fi
  # The password reaches psql on standard input, never as an argument (ps shows arguments). psql
  # reads backslash escapes and doubled quotes inside a quoted \set value; :'password' then quotes
  # it as an SQL literal. The server stores its SCRAM hash (password_encryption).
  quoted=${password//\\/\\\\}
  quoted=${quoted//\'/\'\'}
  psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet <<SQL
\set password '$quoted'
ALTER ROLE herald_$role PASSWORD :'password';
SQL
done
echo "herald-roles: herald_migrator, herald_writer, herald_consumer and herald_relay are set up"
