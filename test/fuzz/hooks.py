"""schemathesis hooks for test/fuzz/api.test.ts (loaded through SCHEMATHESIS_HOOKS).

filter_failure drops the few failures that are the contract working as documented, each by a narrow rule; everything
else fails the run. before_call gives every case an Idempotency-Key of its own (see unique_idempotency_key).
"""

import re
import uuid

import schemathesis
from schemathesis.core.failures import ServerError
from schemathesis.openapi.checks import EnsureResourceAvailability, RejectedPositiveData

# The plan's budgets (openapi.yaml, "Plans and quotas"): a run of a hundred creates per operation meets them, and a
# valid request past one is refused with 403 `plan-limit-reached`, as documented.
PLAN_BUDGET = "/problems/plan-limit-reached"

# Rules that openapi.yaml states in words because a JSON schema cannot say them. A request that matches the schema
# but breaks one of them is refused, rightly, with a problem document naming the field; positive_data_acceptance
# would count that as "valid data rejected". Such a refusal is dropped only when every field the problem names is one
# of the operation's rules below, so a 400 for any other field (or one that names none) still fails the run.
# Each entry is "<location> <path>" as the problem's `errors[]` names it, or a problem `type` the operation documents.

RULES_BEYOND_THE_SCHEMA = {
    # `expiresAt` must be in the future. Past the plan's number of keys, the budget answers.
    "POST /api-keys": {"body /expiresAt", PLAN_BUDGET},
    # `scheduledAt` must be in the future (to publish now there is POST /posts/{id}/publish). `overrides` may only
    # name connections in `connectionIds` (its keys are free-form in the schema: OpenAPI 3.0 has no propertyNames).
    "POST /posts/{id}/schedule": {"body /scheduledAt"},
    "POST /posts/{id}/publish-social": {"body /scheduledAt", "body /overrides"},
    "PUT /posts/{id}": {"body /scheduledAt"},
    # `icon` is one emoji of Unicode's RGI set (flags and ZWJ sequences included): no pattern says that.
    "POST /projects": {"body /icon"},
    "PUT /projects/{id}": {"body /icon"},
    # A cron expression's fields must name real minutes, hours, days...; a template may only use known placeholders.
    # A valid cron that fires more often than the plan allows, or one schedule past the plan's number, meets the budget.
    "POST /schedules": {"body /cronExpression", "body /promptTemplate", PLAN_BUDGET},
    "PUT /schedules/{id}": {"body /cronExpression", "body /promptTemplate", PLAN_BUDGET},
    # One webhook past the plan's number.
    "POST /webhooks": {PLAN_BUDGET},
    # The cursor is opaque: only one the API handed out (in a `Link` header) is accepted.
    "GET /posts": {"query cursor"},
    "GET /posts/project/{projectId}": {"query cursor"},
    # The file must be a JPEG, PNG or WebP image, read from its bytes (the schema can only say `format: binary`).
    "POST /projects/{id}/cover": {"/problems/unsupported-media-type"},
    # The server must exist and accept the credentials: it is asked while the client waits. Generated host names
    # do not exist (a 400 naming the URL), and no platform answers here at all (a 503, see UPSTREAM_CALLS). Telegram's,
    # Discord's and Slack's APIs are pointed at a closed loopback port, which the service refuses to call (a 503); a
    # Discord webhook URL must also begin with DISCORD_API_URL's (a 400 naming it). Nostr relays are sent to our own
    # loopback (see before_call), which the service refuses as a relay: a 400 naming /relays; a key that is 64 hex
    # digits or nsec-shaped need not be a key (/secretKey).
    "POST /social-connections": {
        "body /instanceUrl",
        "body /serviceUrl",
        "body /accessToken",
        "body /appPassword",
        "body /botToken",
        "body /chatId",
        "body /webhookUrl",
        "body /secretKey",
        "body /relays",
        *(f"body /relays/{index}" for index in range(10)),
        PLAN_BUDGET,
    },
    # The redirect URI must be on the workspace's allow-list, the platform one that connects through OAuth, and an
    # author only for LinkedIn.
    "POST /social-connections/authorizations": {"body /redirectUri", "body /platform", "body /author"},
    # An allow-listed redirect URI is https (http only on loopback), without fragment or credentials.
    "PATCH /workspace": {"body /oauthRedirectUris"},
}

# Operations that must reach a third party while the client waits, and answer 503 `service-unavailable` (documented)
# when it cannot be reached. The fuzzer reaches no social platform (generated instance URLs do not even resolve), so
# that 503 is the upstream's doing, not the service's; only that exact problem type is let through.
UPSTREAM_CALLS = {"POST /social-connections"}


# A relay the fuzzer may name instead of a generated one: a generated wss:// URL can be a public address, and the run
# must reach nothing outside this machine. Loopback is refused as a relay (SOCIAL_ALLOW_PRIVATE_NETWORKS is off), so
# nothing is connected to at all.
LOOPBACK_RELAY = "wss://127.0.0.1:9"

# openapi.yaml's Idempotency-Key: 1 to 255 visible ASCII characters, spaces allowed inside.
IDEMPOTENCY_KEY = re.compile(r"^[!-~]([ -~]*[!-~])?$")


@schemathesis.hook
def before_call(context, case, kwargs):
    """Makes every valid Idempotency-Key the fuzzer sends unique to its case, keeping its shape.

    The examples and coverage phases send the same few key values to every POST, and a key reused on another request
    is answered as documented: 422 `idempotency-key-reused`, or the first request's answer replayed (a 201 naming an
    API key that the run has deleted since). That is the contract at work, and test/api/idempotency-keys.test.ts
    covers it; here each case must reach its operation. Negative cases are sent as generated: they are refused
    before the key is used (400, 401), and editing them would make schemathesis judge them again as positive.
    """
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return
    body = case.body
    if case.operation.label == "POST /social-connections" and isinstance(body, dict) and isinstance(body.get("relays"), list):
        body["relays"] = [f"{LOOPBACK_RELAY}/{index}" for index in range(len(body["relays"]))]
    headers = case.headers or {}
    for name, value in headers.items():
        if name.lower() == "idempotency-key" and isinstance(value, str) and len(value) <= 255 and IDEMPOTENCY_KEY.match(value):
            headers[name] = f"{value[:218]}-{uuid.uuid4()}"


@schemathesis.hook
def filter_failure(context, failure, case, response):
    label = case.operation.label
    if isinstance(failure, ServerError):
        return not (label in UPSTREAM_CALLS and response.status_code == 503 and blamed_by(response) == {"/problems/service-unavailable"})
    if isinstance(failure, RejectedPositiveData):
        allowed = RULES_BEYOND_THE_SCHEMA.get(label)
        blamed = blamed_by(response)
        return not (allowed and blamed and blamed <= allowed)
    if isinstance(failure, EnsureResourceAvailability):
        # "Created resource not found": a 404 right after the create. The contract also answers 404 for an id in the
        # body that is not in the workspace (`connectionIds`, `projectId`, `brandKitId`), and the detail names the id
        # at fault ("Social connection <id> was not found ..."): only a 404 naming the created resource is a failure.
        problem = problem_of(response)
        if problem is None or problem.get("type") != "/problems/not-found":
            return True
        return any(str(value) in problem.get("detail", "") for value in (case.path_parameters or {}).values())
    return True


def blamed_by(response):
    """What a problem document blames: each `errors[]` entry as "<location> <path>", else its `type`."""
    problem = problem_of(response)
    if problem is None:
        return None
    errors = problem.get("errors")
    if errors:
        return {f"{error.get('location')} {error.get('path')}" for error in errors}
    return {problem.get("type")}


def problem_of(response):
    try:
        problem = response.json()
    except ValueError:
        return None
    return problem if isinstance(problem, dict) else None
