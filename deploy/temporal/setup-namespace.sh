#!/bin/sh
# Creates the service's namespace and its custom search attributes (workspaceId, projectId, postId) once the
# Temporal server answers, as Temporal's own compose files create their namespace (scripts/create-namespace.sh in
# temporalio/samples-server). Safe to run again: what exists is kept. Each step is retried: a namespace just
# created is unknown to the frontend until its namespace cache refreshes (seconds).
set -eu

namespace="${TEMPORAL_NAMESPACE:-default}"
attempts="${SETUP_ATTEMPTS:-30}"

retry() {
  attempt=1
  until "$@"; do
    if [ "$attempt" -ge "$attempts" ]; then
      echo "gave up after $attempts attempts: $*" >&2
      return 1
    fi
    attempt=$((attempt + 1))
    sleep 5
  done
}

ensure_namespace() {
  temporal operator namespace describe --address "$TEMPORAL_ADDRESS" --namespace "$namespace" >/dev/null 2>&1 ||
    temporal operator namespace create --address "$TEMPORAL_ADDRESS" --namespace "$namespace" --retention "${NAMESPACE_RETENTION:-72h}"
}

# A create refused because the attribute is already there is fine: the list says so.
ensure_search_attribute() {
  temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$namespace" --name "$1" --type Keyword ||
    temporal operator search-attribute list --address "$TEMPORAL_ADDRESS" --namespace "$namespace" | grep -qw "$1"
}

retry temporal operator cluster health --address "$TEMPORAL_ADDRESS"
retry ensure_namespace
for name in workspaceId projectId postId; do retry ensure_search_attribute "$name"; done
echo "Namespace $namespace and its search attributes are ready"
