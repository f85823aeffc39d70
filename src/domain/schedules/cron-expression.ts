import { CronExpressionParser } from 'cron-parser';
import { AppError } from '../../errors/app-error.ts';

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
    const probe = fields.map((other, position) => (position === index ? other : '*')).join(' ');
    try {
      CronExpressionParser.parse(probe, { tz: 'UTC' });
    } catch (error) {
      throw invalid(`the ${name} field "${field}" is invalid: ${(error as Error).message}`);
    }
  });
  const normalized = fields.join(' ');
  try {
    CronExpressionParser.parse(normalized, { tz: 'UTC' }).next();
  } catch (error) {
    throw invalid(`it never fires: ${(error as Error).message}`);
  }
  return normalized;
}

/**
 * The next `count` times the expression fires after `from`, in UTC, as Temporal's schedules fire it: a time must
 * match every field, day of month and day of week alike (classic cron and cron-parser fire on either of those two
 * when both are restricted, Temporal only on both). Fewer than `count` when it never fires again.
 */
export function nextCronTimes(expression: string, from: Date, count: number): Date[] {
  const [minute, hour, dayOfMonth, month] = expression.split(' ');
  const weekdays = new Set<number>(CronExpressionParser.parse(expression, { tz: 'UTC' }).fields.dayOfWeek.values.filter((day) => typeof day === 'number'));
  const withoutWeekday = `${minute} ${hour} ${dayOfMonth} ${month} *`;
  const times: Date[] = [];
  let after = from;
  // A candidate on the wrong weekday skips to the next day; weekdays come round in every month and year, so even a
  // leap day on a Monday is a few dozen candidates away.
  for (let candidates = 0; times.length < count && candidates < 10_000; candidates += 1) {
    let time: Date;
    try {
      time = CronExpressionParser.parse(withoutWeekday, { tz: 'UTC', currentDate: after }).next().toDate();
    } catch {
      break;
    }
    if (weekdays.has(time.getUTCDay())) {
      times.push(time);
      after = time;
    } else {
      after = new Date(Date.UTC(time.getUTCFullYear(), time.getUTCMonth(), time.getUTCDate() + 1) - 1);
    }
  }
  return times;
}

function invalid(problem: string): AppError {
  return new AppError('validation-failed', `cronExpression ${problem}.`, {
    errors: [{ location: 'body', path: '/cronExpression', message: problem }],
  });
}
