#!/bin/sh
# Creates Temporal's two databases on the PostgreSQL server and brings their schemas to the version of the
# admin-tools image, as Temporal's own compose files do (scripts/setup-postgres.sh in temporalio/samples-server).
# Every step is safe to run again: `create` ignores an existing database, `setup-schema -v 0.0` keeps a newer
# version, and `update-schema` applies only the versions not yet recorded.
set -eu

: "${POSTGRES_SEEDS:?POSTGRES_SEEDS is required}"
: "${POSTGRES_USER:?POSTGRES_USER is required}"
: "${SQL_PASSWORD:?SQL_PASSWORD is required}"
port="${DB_PORT:-5432}"
schemas=/etc/temporal/schema/postgresql/v12

nc -z -w 10 "$POSTGRES_SEEDS" "$port"

for database in "${DBNAME:-temporal}:temporal" "${VISIBILITY_DBNAME:-temporal_visibility}:visibility"; do
  name="${database%%:*}"
  dir="${database##*:}"
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$port" --db "$name" create
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$port" --db "$name" setup-schema -v 0.0
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$port" --db "$name" update-schema -d "$schemas/$dir/versioned"
done
echo "Temporal schemas are up to date"
