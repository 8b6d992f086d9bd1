import type { ReferenceTarget } from '../kernel/relation.ts';
import { serializeUser, userShape } from './accounts/user.shape.ts';
import { systemOptionShape } from './lookups/lookup.shapes.ts';
import { serializeSystemOption } from './lookups/lookup.service.ts';

// Records that fields reference but that are not declared resources, with their batched reads: the relations
// derived from such references (Job.assignees, Customer.assignee, System.systemOption ...) serve them.

/** Users of the caller's account by id, active or not, as `User` (readable with the parent's scope). */
const users: ReferenceTarget = {
  model: 'user',
  shape: userShape,
  scope: null,
  async load(ids, { db }) {
    const wanted = [...new Set(ids)].filter((id) => /^\d{1,18}$/.test(id)).map((id) => BigInt(id));
    const rows = wanted.length === 0 ? [] : await db.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true, email: true, role: true } });
    const byId = new Map(rows.map((row) => [String(row.id), serializeUser(row)]));
    return ids.map((id) => byId.get(id) ?? null);
  },
};

/** Entries of the shared, read-only system options catalog by id (as GET /system_options serves them; any key reads it). */
const systemOptions: ReferenceTarget = {
  model: 'systemOption',
  shape: systemOptionShape,
  scope: null,
  async load(ids, { db }) {
    const rows = await db.systemOption.findMany({ where: { id: { in: [...new Set(ids)] } } });
    const byId = new Map(rows.map((row) => [row.id, serializeSystemOption(row)]));
    return ids.map((id) => byId.get(id) ?? null);
  },
};

export const referenceTargets: readonly ReferenceTarget[] = [users, systemOptions];
