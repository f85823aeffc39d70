/** A seed from an id's random bits (a generation's), in Stability AI's range (0 to 4294967294). */
export function seedFromId(id: string): number {
  return Number.parseInt(id.replaceAll('-', '').slice(-8), 16) % 4294967295;
}
