/** A time as the Temporal UI's current details show it: `2026-12-01 09:00:00 UTC`. */
export function utc(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
