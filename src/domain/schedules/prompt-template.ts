import { AppError } from '../../common/errors/app-error.ts';

// Placeholders a prompt template may use, filled in at each run (UTC).
const placeholders = {
  date: (run: Date) => run.toISOString().slice(0, 10),
  time: (run: Date) => run.toISOString().slice(11, 16),
  weekday: (run: Date) => run.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' }),
  month: (run: Date) => run.toLocaleDateString('en-US', { month: 'long', timeZone: 'UTC' }),
  year: (run: Date) => String(run.getUTCFullYear()),
} as const;
// Anything between double braces reads as a placeholder, whatever its characters: a name the pattern skipped would
// stay in every post as typed (`{{__proto__}}`, `{{next_day}}`).
const placeholder = /\{\{\s*([^{}]*?)\s*\}\}/g;

const placeholderNames = Object.keys(placeholders);

// Own names only: `in` would also find what every object inherits (`{{constructor}}`, `{{__proto__}}`).
function isPlaceholder(name: string): name is keyof typeof placeholders {
  return Object.hasOwn(placeholders, name);
}

/** Refuses placeholders that do not exist, naming them, so a typo shows at once and not in every post. */
export function validatePromptTemplate(template: string | null | undefined): void {
  if (!template) return;
  const unknown = [...template.matchAll(placeholder)].map((match) => match[1]!).filter((name) => !isPlaceholder(name));
  if (unknown.length === 0) return;
  const detail = `unknown placeholder(s) ${unknown.map((name) => `{{${name}}}`).join(', ')}; known: ${placeholderNames.map((name) => `{{${name}}}`).join(', ')}`;
  throw new AppError('validation-failed', `promptTemplate has ${detail}.`, { errors: [{ location: 'body', path: '/promptTemplate', message: detail }] });
}

/** The prompt of the run at `run`. */
export function renderPromptTemplate(template: string, run: Date): string {
  return template.replace(placeholder, (whole, name: string) => (isPlaceholder(name) ? placeholders[name](run) : whole));
}
