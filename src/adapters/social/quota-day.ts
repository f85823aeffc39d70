// A platform's quota day, which runs midnight to midnight in the time zone the platform counts it in (YouTube: Los
// Angeles), not ours or UTC's: the day a unit is counted on, and how long until the next begins.

const dayMs = 24 * 60 * 60 * 1000;

/** The day `now` falls on in `timeZone`, as `YYYY-MM-DD`. */
export function quotaDayOf(timeZone: string, now = new Date()): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** How long until midnight in `timeZone`. */
export function untilMidnightMs(timeZone: string, now = new Date()): number {
  const clock = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  const [hours = 0, minutes = 0, seconds = 0] = clock.format(now).split(':').map(Number);
  return dayMs - ((hours * 60 + minutes) * 60 + seconds) * 1000 - now.getMilliseconds();
}
