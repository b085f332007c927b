export const ROLES = ['ingress', 'worker', 'scheduler'] as const;
export type Role = (typeof ROLES)[number];

class RoleError extends Error {
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

/**
 * What a process's Postgres connections call themselves (`application_name`), so that
 * pg_stat_activity tells an ingress's connections from a worker's: `paymirror ingress`,
 * `paymirror worker,scheduler`. An application_name in DATABASE_URL wins.
 */
export function applicationNameFor(roles: ReadonlySet<Role>): string {
  return `paymirror ${ROLES.filter((role) => roles.has(role)).join(',')}`;
}
