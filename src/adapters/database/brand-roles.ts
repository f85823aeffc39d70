// The roles of brand colours and fonts, in the spec's order, the one list of them (the brand kit's types derive from
// it). PostgreSQL's jsonb does not keep key order, so whatever shows or uses them (API, generation texts, the local
// artwork's palette) puts them back in this order. No imports: the artwork's render thread loads this file.
export const colorRoles = ['primary', 'secondary', 'accent', 'neutral'] as const;
export const fontRoles = ['heading', 'body'] as const;

/** The entries that are set, in role order. */
export function inRoleOrder(values: Partial<Record<string, string>>, roles: readonly string[]): Array<[string, string]> {
  return roles.flatMap((role) => (values[role] === undefined ? [] : [[role, values[role]] as [string, string]]));
}
