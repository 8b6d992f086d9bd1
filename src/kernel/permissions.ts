import { AppError } from './errors.ts';
import { vocabulary } from './vocabulary.ts';

// What a user's role may do beyond its key's scopes (spec: "a key never has more rights than its user").
export const roles = vocabulary('Role', ['admin', 'office', 'technician'], {
  description: "A user's role: what the user may do beyond the key's scopes.",
  describe: (role) =>
    ({
      admin: 'An administrator of the account; may decide estimates.',
      office: 'Office staff (dispatch, sales, accounting); may decide estimates.',
      technician: 'A field technician; may not decide estimates (move them to Sent, Accepted or Declined).',
    })[role],
});
export type Role = (typeof roles)[number];

export const permissions = {
  /** Move an estimate to Sent, Accepted or Declined. */
  'estimates.decide': ['admin', 'office'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof permissions;

export function hasPermission(role: Role, permission: Permission): boolean {
  return (permissions[permission] as readonly Role[]).includes(role);
}

export function requirePermission(role: Role, permission: Permission, detail: string): void {
  if (!hasPermission(role, permission)) throw new AppError('auth.permission_denied', detail);
}
