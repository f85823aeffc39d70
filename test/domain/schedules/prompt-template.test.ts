import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/common/errors/app-error.ts';
import { renderPromptTemplate, validatePromptTemplate } from '../../../src/domain/schedules/prompt-template.ts';

function refusalOf(template: string): { status: number; paths: string[]; detail: string } | undefined {
  try {
    validatePromptTemplate(template);
    return undefined;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, paths: (error.extras.errors ?? []).map((item) => item.path), detail: error.message };
  }
}

describe('prompt template placeholders', () => {
  // Every name an object inherits, `__proto__` among them, as a placeholder.
  const inherited = Object.getOwnPropertyNames(Object.prototype);

  it.each(inherited)('when a template uses {{%s}}, then it is refused with a 400 naming promptTemplate and the placeholder', (name) => {
    expect(refusalOf(`News of {{${name}}}`)).toEqual({ status: 400, paths: ['/promptTemplate'], detail: expect.stringContaining(`{{${name}}}`) });
  });

  it.each(['{{next_day}}', '{{ day-2 }}', '{{}}', '{{date.now}}'])('when a template uses %s (not a plain word), then it is refused too', (placeholder) => {
    expect(refusalOf(`News of ${placeholder}`)).toMatchObject({ status: 400, paths: ['/promptTemplate'] });
  });

  it('when a template uses only known placeholders, spaced or not, then it is accepted and each is filled in', () => {
    const template = 'A tip for {{weekday}}, {{ date }} at {{time}} ({{month}} {{year}})';
    expect(refusalOf(template)).toBeUndefined();
    expect(renderPromptTemplate(template, new Date('2026-11-27T09:30:00Z'))).toBe('A tip for Friday, 2026-11-27 at 09:30 (November 2026)');
  });
});
