import { roles } from '../../kernel/permissions.ts';
import { wireShape, type WireOf } from '../../kernel/wire-shape.ts';

/** A user of the account: the caller's (me.user) and a job's assignees. */
export const userShape = wireShape({
  name: 'User',
  description: 'A user of the account (an assignee).',
  fields: {
    id: { kind: 'int64', description: 'The id of the user (a number).' },
    name: { kind: 'string', description: 'Name of the user.' },
    email: { kind: 'email', description: 'Email address of the user.' },
    role: { kind: 'string', enum: roles, description: 'admin, office or technician.' },
  },
});

/** A user row (or the caller's principal) as served. */
export function serializeUser(user: { id: bigint | number; name: string; email: string; role: string }): WireOf<typeof userShape> {
  return { id: Number(user.id), name: user.name, email: user.email, role: user.role };
}
