// The string formats of openapi.yaml as this service means them. express-openapi-validator checks requests (and, in
// tests, responses) with these instead of ajv's looser defaults, and the few inputs that bypass it (the admin CLI,
// the dashboard's own endpoint) call the same functions, so each rule lives in one place.

// RFC 3339 `date-time`: 2026-11-23T09:00:00Z, with optional fraction and a Z or ±hh:mm offset.
const dateTime = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * A real instant: the calendar values exist (no month 13, no 29 o'clock, no 30 February) and the year is 0001–9999,
 * well inside PostgreSQL's timestamptz range and JavaScript's Date (year 0000 is valid RFC 3339 but PostgreSQL has
 * no year zero). Leap seconds (:60) are refused: neither PostgreSQL nor Date keeps them.
 */
export function isDateTime(value: string): boolean {
  const match = dateTime.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHours = Number(match[8] ?? 0);
  const offsetMinutes = Number(match[9] ?? 0);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return false;
  // An offset can still move 0001-01-01T00:00+01:00 into year zero, or 9999-12-31T23:00-02:00 past the end.
  const utcYear = new Date(Date.parse(value)).getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

// Characters a URL must not carry raw: controls (C0, DEL, C1), whitespace and lone surrogates. The WHATWG parser would silently
// drop or percent-encode some of them, so the URL we store would not be the one the client meant.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const unsafeInUrl = /[\u0000-\u0020\u007f-\u009f]/;

/**
 * An absolute URL as browsers and Node parse it (WHATWG URL standard) with a host: `https://` alone, `https://\u0084`
 * or `http:foo` are not. The schemes allowed are the schema's business (request URLs add `pattern: ^https://`).
 */
export function isWebUrl(value: string): boolean {
  if (unsafeInUrl.test(value) || !value.isWellFormed() || !URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
}

/** A UUID in its canonical 8-4-4-4-12 hex form (no `urn:uuid:` prefix, no braces), as PostgreSQL stores it. */
export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

/** The `formats` option of express-openapi-validator: these replace ajv-formats' versions of the same names. */
export const openApiFormats = {
  'date-time': { type: 'string', validate: isDateTime },
  uri: { type: 'string', validate: isWebUrl },
  uuid: { type: 'string', validate: isUuid },
} as const;
