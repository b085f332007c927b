export const ROLES = ['ingress', 'worker', 'scheduler'] as const;
export type Role = (typeof ROLES)[number];

export class RoleError extends Error {
  override readonly name = 'RoleError';
}

/** `all`, one role, or a comma-separated list of roles. */
export function parseRoles(value: string): ReadonlySet<Role> {
  const parts = value.split(',').map((part) => part.trim().toLowerCase());
  if (parts.includes('all')) return new Set(ROLES);
  const roles = new Set<Role>();
  for (const part of parts) {
    if (!(ROLES as readonly string[]).includes(part)) {
      throw new RoleError(`unknown role "${part}": expected all, ${ROLES.join(', ')}`);
    }
    roles.add(part as Role);
  }
  return roles;
}
