import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { root, sources } from './source-files.ts';

// Small things the code does in many places are written once: what a catch clause caught, as a message or an Error,
// and the walk down an error's causes (src/common/errors/caught.ts), and the brand kit's colour roles (src/adapters/database/brand-roles.ts).

function offenders(directories: string[], pattern: RegExp, home: string): string[] {
  return directories
    .flatMap(sources)
    .filter((file) => file.slice(root.length) !== home)
    .flatMap((file) => (pattern.test(readFileSync(file, 'utf8')) ? [file.slice(root.length)] : []));
}

describe('shared helpers', () => {
  it('when code turns a caught value into a message or an Error, then it calls src/common/errors/caught.ts', () => {
    const copy = /instanceof Error \? \w+(?:\.message)? : (?:new Error\()?String\(/;
    expect(offenders(['src', 'activities', 'workflows', 'worker', 'tools', 'bench', 'test'], copy, 'src/common/errors/caught.ts')).toEqual([]);
  });

  it("when code looks through an error's causes, then it walks them with causesOf (src/common/errors/caught.ts)", () => {
    const walk = /current instanceof Error[^;]*;[^)]*current = current\.cause/;
    expect(offenders(['src', 'activities', 'workflows', 'worker'], walk, 'src/common/errors/caught.ts')).toEqual([]);
  });

  it('when code lists the brand colour roles, then it reads them from src/adapters/database/brand-roles.ts', () => {
    const list = /'primary'\s*[,|]\s*'secondary'/;
    expect(offenders(['src', 'activities', 'workflows', 'worker', 'bench'], list, 'src/adapters/database/brand-roles.ts')).toEqual([]);
  });
});
