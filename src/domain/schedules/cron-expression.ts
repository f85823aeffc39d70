import { CronExpressionParser } from 'cron-parser';
import { AppError } from '../../common/errors/app-error.ts';

const fieldNames = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'] as const;
// What both cron-parser and Temporal's cron accept alike: numbers, names, * / , -. No macros, seconds, L, W, H, #
// or ?: cron-parser knows some of those extensions and Temporal refuses them, so they are checked here, not there.
const fieldSyntax = /^[0-9A-Za-z*/,-]+$/;
// The only words: month names in the month field, day names in the day-of-week field.
const namesByField: Partial<Record<(typeof fieldNames)[number], readonly string[]>> = {
  month: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  'day-of-week': ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
};

/**
 * Checks a five-field cron expression (minute hour day-of-month month day-of-week, UTC) and answers 400 naming
 * the field at fault; returns the expression with single spaces.
 */
export function validateCronExpression(expression: string): string {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) {
    throw invalid(`needs 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}`);
  }
  fields.forEach((field, index) => {
    const name = fieldNames[index]!;
    if (!fieldSyntax.test(field)) throw invalid(`the ${name} field "${field}" has characters cron does not allow here`);
    const words = field.match(/[A-Za-z]+/g) ?? [];
    const allowed = namesByField[name] ?? [];
    const unknown = words.find((word) => !allowed.includes(word.toUpperCase()));
    if (unknown !== undefined) {
      const known = allowed.length > 0 ? `only ${allowed.join(', ')} are names here` : 'only numbers are allowed here';
      throw invalid(`the ${name} field "${field}" has "${unknown}": ${known}`);
    }
  });
  // One "now" for every parse: without currentDate the parser makes one of its own in the time zone each time, most
  // of its cost, paid once per parse.
  const options = { tz: 'UTC', currentDate: new Date() };
  const normalized = fields.join(' ');
  // Parsing alone is the whole check: cron-parser refuses there a day of month that none of the months has (31
  // February), the only way an expression in the syntax allowed above never fires by its rules (compared with
  // asking for the next time on many random expressions). Asking as well stepped its dates through time zones, which
  // made each check several times slower.
  try {
    CronExpressionParser.parse(normalized, options);
    return normalized;
  } catch (error) {
    // Which field is at fault: each parsed with the others as "*". When each is fine alone, the whole never fires.
    fields.forEach((field, index) => {
      const probe = fields.map((other, position) => (position === index ? other : '*')).join(' ');
      try {
        CronExpressionParser.parse(probe, options);
      } catch (fieldError) {
        throw invalid(`the ${fieldNames[index]!} field "${field}" is invalid: ${(fieldError as Error).message}`);
      }
    });
    throw invalid(`it never fires: ${(error as Error).message}`);
  }
}

// Gregorian dates repeat their weekdays every 400 years: a date that can come with its weekday comes within them.
const searchedDays = 400 * 366;
const dayMs = 86_400_000;
// Days in each month of a leap year: the dates that exist at all.
const monthLengths = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The next `count` times the expression fires after `from`, in UTC, as Temporal's schedules fire it: a time must
 * match every field, day of month and day of week alike (classic cron and cron-parser fire on either of those two
 * when both are restricted, Temporal only on both). Fewer than `count` when it never fires again. Walks the days
 * itself from the parsed fields: stepping cron-parser through time zones cost a page of schedules more than the
 * page's query. Found times are a few days apart at most, bar rare dates (29 February on a Monday).
 */
export function nextCronTimes(expression: string, from: Date, count: number): Date[] {
  // currentDate spares the parser making a "now" of its own in the time zone, most of its cost.
  const { minute, hour, dayOfMonth, month, dayOfWeek } = CronExpressionParser.parse(expression, { tz: 'UTC', currentDate: from }).fields;
  const minutes = numbersOf(minute.values);
  const hours = numbersOf(hour.values);
  const days = new Set(numbersOf(dayOfMonth.values));
  const months = new Set(numbersOf(month.values));
  const weekdays = new Set(numbersOf(dayOfWeek.values).map((day) => day % 7)); // 7 is Sunday too
  const times: Date[] = [];
  // 31 February never comes, whatever the weekday: no need to look through 400 years to say so.
  if (![...months].some((monthOfYear) => [...days].some((day) => day <= monthLengths[monthOfYear - 1]!))) return times;
  const firstDay = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
  for (let index = 0; index < searchedDays; index += 1) {
    const day = new Date(firstDay + index * dayMs);
    if (!months.has(day.getUTCMonth() + 1) || !days.has(day.getUTCDate()) || !weekdays.has(day.getUTCDay())) continue;
    for (const hourOfDay of hours) {
      for (const minuteOfHour of minutes) {
        const time = day.getTime() + hourOfDay * 3_600_000 + minuteOfHour * 60_000;
        if (time <= from.getTime()) continue;
        times.push(new Date(time));
        if (times.length === count) return times;
      }
    }
  }
  return times;
}

/**
 * The shortest time between two firings, in minutes: between the times of day the expression fires (every hour it
 * names × every minute it names), across midnight too. Days are left out: a schedule that fires 00:00 and 23:55
 * counts as 5 minutes apart even if it fires on Mondays only, a rule a customer can check by reading the hour and
 * minute fields.
 */
export function shortestCronIntervalMinutes(expression: string): number {
  const { minute, hour } = CronExpressionParser.parse(expression, { tz: 'UTC', currentDate: new Date(0) }).fields;
  const minutes = numbersOf(minute.values);
  const times = numbersOf(hour.values).flatMap((hourOfDay) => minutes.map((minuteOfHour) => hourOfDay * 60 + minuteOfHour));
  const gaps = times.slice(1).map((time, index) => time - times[index]!);
  return Math.min(...gaps, 24 * 60 - times.at(-1)! + times[0]!);
}

// Ascending, as cron-parser keeps them; `L` (last day) is refused by validateCronExpression.
function numbersOf(values: readonly (number | string)[]): number[] {
  return values.filter((value): value is number => typeof value === 'number');
}

function invalid(problem: string): AppError {
  return new AppError('validation-failed', `cronExpression ${problem}.`, {
    errors: [{ location: 'body', path: '/cronExpression', message: problem }],
  });
}
