// The roles of brand colours and fonts, in the spec's order. PostgreSQL's jsonb does not keep key order, so
// whatever shows them (API, generation texts) puts them back in this order.
export const colorRoles = ['primary', 'secondary', 'accent', 'neutral'] as const;
export const fontRoles = ['heading', 'body'] as const;

/** The entries that are set, in role order. */
export function inRoleOrder(values: Partial<Record<string, string>>, roles: readonly string[]): Array<[string, string]> {
  return roles.flatMap((role) => (values[role] === undefined ? [] : [[role, values[role]] as [string, string]]));
}
