"""schemathesis hooks for test/fuzz/api.test.ts (loaded through SCHEMATHESIS_HOOKS)."""

import schemathesis
from schemathesis.openapi.checks import RejectedPositiveData

# Rules that openapi.yaml states in words because a JSON schema cannot say them. A request that matches the schema
# but breaks one of them is refused, rightly, with a problem document naming the field; positive_data_acceptance
# would count that as "valid data rejected". Such a refusal is dropped here only when every field the problem names
# is one of the operation's rules below, so a 400 for any other field (or one that names none) still fails the run.
# Each entry is "<location> <path>" as the problem's `errors[]` names it, or a problem `type` the operation documents.
RULES_BEYOND_THE_SCHEMA = {
    # `expiresAt` must be in the future.
    "POST /api-keys": {"body /expiresAt"},
    # `scheduledAt` must be in the future (to publish now there is POST /posts/{id}/publish).
    "POST /posts/{id}/schedule": {"body /scheduledAt"},
    "POST /posts/{id}/publish-social": {"body /scheduledAt"},
    "PUT /posts/{id}": {"body /scheduledAt"},
    # `icon` is one emoji of Unicode's RGI set (flags and ZWJ sequences included): no pattern says that.
    "POST /projects": {"body /icon"},
    "PUT /projects/{id}": {"body /icon"},
    # A cron expression's fields must name real minutes, hours, days...; a template may only use known placeholders.
    "POST /schedules": {"body /cronExpression", "body /promptTemplate"},
    "PUT /schedules/{id}": {"body /cronExpression", "body /promptTemplate"},
    # The cursor is opaque: only one the API handed out (in a `Link` header) is accepted.
    "GET /posts": {"query cursor"},
    "GET /posts/project/{projectId}": {"query cursor"},
    # The file must be a JPEG, PNG or WebP image, read from its bytes (the schema can only say `format: binary`).
    "POST /projects/{id}/cover": {"/problems/unsupported-media-type"},
}


def problem_fields(response):
    """What a problem document blames: each `errors[]` entry as "<location> <path>", else its `type`."""
    try:
        problem = response.json()
    except ValueError:
        return None
    if not isinstance(problem, dict):
        return None
    errors = problem.get("errors")
    if errors:
        return {f"{error.get('location')} {error.get('path')}" for error in errors}
    return {problem.get("type")}


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if not isinstance(failure, RejectedPositiveData):
        return True
    allowed = RULES_BEYOND_THE_SCHEMA.get(case.operation.label)
    blamed = problem_fields(response)
    return not (allowed and blamed and blamed <= allowed)
