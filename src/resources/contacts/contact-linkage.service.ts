import { readActionInput, type ActionInput } from '../../kernel/action.ts';
import { addError, NOT_PERMITTED, throwIfErrors } from '../../kernel/body.ts';
import type { Clock } from '../../kernel/clock.ts';
import { runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { AppError, notFound, type FieldErrors } from '../../kernel/errors.ts';
import { appendEvent, changedFields } from '../../kernel/events.ts';
import { isUuid, newId } from '../../kernel/ids.ts';
import { inTransaction, type TenantClient, type TenantTx } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { linkableTypes, lockLinkable, type LinkableType } from './linkables.ts';
import type { WireOf } from '../../kernel/wire-shape.ts';
import { linkageShape, relationshipTypes } from './contact-linkage.shape.ts';

// Contact linkages, the spec's rules 1–5:
// 1. the first contact linked to a record becomes its primary, whatever `primary` says;
// 2. later links are not primary unless primary is true, which moves the record's primary here;
// 3. PATCH primary true moves the primary here; primary false is accepted only on a non-primary linkage
//    (on the primary one it is 409 contact.primary_linkage: promote another contact instead);
// 4. deleting the primary's linkage is 409 contact.primary_linkage;
// 5. at most one primary per record: the record row is locked for every change of its linkages, and a
//    partial unique index (contact_linkages_one_primary) holds even if code were wrong.
// Every linkage change also locks the contact's row (after the record's, the order every path takes), and
// DELETE /contacts/{id} locks it before counting its linkages, so a contact is never deleted while a link to it
// is being made: one of the two waits for the other and then sees its result (404, or 409 contact.has_linkages).
// Hence no linkage ever belongs to a deleted contact, and the "first link" count below needs no contact filter.

/** The name of a linkage's input (ActionBody `key`): a key of it holding text that cannot be stored is reported under it. */
const INPUT_KEY = 'linkage';

export interface LinkageRow {
  id: string;
  contact_id: string;
  linkable_type: string;
  linkable_id: string;
  relationship_type: string;
  is_primary: boolean;
  created_at: Date;
  updated_at: Date;
}

export function serializeLinkage(row: LinkageRow): WireLinkage {
  return {
    id: row.id,
    contact_id: row.contact_id,
    linkable_id: row.linkable_id,
    linkable_type: row.linkable_type,
    relationship_type: row.relationship_type,
    primary: row.is_primary,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export type WireLinkage = WireOf<typeof linkageShape>;

/** The order a contact's or a record's linkages are served in: oldest link first. */
export const linkageOrder = [{ created_at: 'asc' }, { id: 'asc' }] as const;

/** The linkage's event; an update names what moved since `before` (changed_fields). */
async function event(tx: TenantTx, ctx: RequestContext, row: LinkageRow, action: 'created' | 'updated' | 'deleted', before?: LinkageRow) {
  const payload = serializeLinkage(row);
  const details = before ? { changed_fields: changedFields(serializeLinkage(before), payload) } : undefined;
  await appendEvent(tx, ctx, { resource: 'ContactLinkage', topicPrefix: 'contact_linkage', recordId: row.id, action, payload, details });
}

/** Locks the live contact's row (FOR UPDATE) until the transaction ends; 404 when it is absent or deleted. */
async function lockContact(tx: TenantTx, contactId: string): Promise<void> {
  const rows = isUuid(contactId)
    ? await tenantQuery(tx, `SELECT 1 FROM contacts WHERE account_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL FOR UPDATE`, contactId)
    : [];
  if (rows.length === 0) throw notFound('Contact');
}

export interface LinkInput {
  linkable_type: LinkableType;
  linkable_id: string;
  relationship_type?: string;
  primary?: boolean;
}

/** Validates a linkage body (create); field errors name the field. */
export function checkLinkInput(input: Record<string, unknown>, errors: FieldErrors, prefix = ''): LinkInput | null {
  for (const key of Object.keys(input)) {
    if (!['linkable_id', 'linkable_type', 'relationship_type', 'primary'].includes(key)) addError(errors, prefix + key, NOT_PERMITTED);
  }
  if (input.linkable_type === undefined) addError(errors, `${prefix}linkable_type`, 'is missing');
  else if (!linkableTypes.includes(input.linkable_type as LinkableType)) addError(errors, `${prefix}linkable_type`, `must be one of: ${linkableTypes.join(', ')}`);
  if (input.linkable_id === undefined) addError(errors, `${prefix}linkable_id`, 'is missing');
  else if (!isUuid(input.linkable_id)) addError(errors, `${prefix}linkable_id`, 'is not a valid UUID');
  checkCommon(input, errors, prefix);
  if (Object.keys(errors).length > 0) return null;
  return input as unknown as LinkInput;
}

function checkCommon(input: Record<string, unknown>, errors: FieldErrors, prefix = '') {
  if (input.relationship_type !== undefined && !relationshipTypes.includes(input.relationship_type as (typeof relationshipTypes)[number])) {
    addError(errors, `${prefix}relationship_type`, `must be one of: ${relationshipTypes.join(', ')}`);
  }
  if (input.primary !== undefined && typeof input.primary !== 'boolean') addError(errors, `${prefix}primary`, 'must be true or false');
}

/** Links a contact to a record inside the caller's transaction (also used when a contact is created with linkable_id). */
export async function linkContact(tx: TenantTx, ctx: RequestContext, contactId: string, input: LinkInput, now: Date, field = 'linkable_id'): Promise<LinkageRow> {
  if (!(await lockLinkable(tx, input.linkable_type, input.linkable_id))) {
    throw new AppError('validation.failed', `${field} does not match any ${input.linkable_type}`, { errors: { [field]: [`does not match any ${input.linkable_type}`] } });
  }
  await lockContact(tx, contactId);
  const where = { linkable_type: input.linkable_type, linkable_id: input.linkable_id };
  if ((await tx.contactLinkage.count({ where: { ...where, contact_id: contactId } })) > 0) {
    throw new AppError('validation.failed', `the contact is already linked to this ${input.linkable_type}`, {
      errors: { [field]: [`is already linked to this contact`] },
    });
  }
  const first = (await tx.contactLinkage.count({ where })) === 0;
  const primary = first || input.primary === true;
  if (primary && !first) await demotePrimary(tx, ctx, input.linkable_type, input.linkable_id, now);
  const row = (await tx.contactLinkage.create({
    data: {
      id: newId(),
      account_id: ctx.principal.accountId,
      contact_id: contactId,
      linkable_type: input.linkable_type,
      linkable_id: input.linkable_id,
      relationship_type: input.relationship_type ?? 'associated',
      is_primary: primary,
      created_at: now,
      updated_at: now,
    },
  })) as LinkageRow;
  await event(tx, ctx, row, 'created');
  return row;
}

async function demotePrimary(tx: TenantTx, ctx: RequestContext, type: string, id: string, now: Date) {
  const current = (await tx.contactLinkage.findFirst({ where: { linkable_type: type, linkable_id: id, is_primary: true } })) as LinkageRow | null;
  if (!current) return;
  await tx.contactLinkage.updateMany({ where: { id: current.id }, data: { is_primary: false, updated_at: now } });
  await event(tx, ctx, { ...current, is_primary: false, updated_at: now }, 'updated', current);
}

export class ContactLinkageService {
  constructor(
    private readonly db: TenantClient,
    private readonly clock: Clock,
  ) {}

  private async liveContact(tx: TenantTx | TenantClient, contactId: string): Promise<void> {
    const found = isUuid(contactId) ? await tx.contact.count({ where: { id: contactId, deleted_at: null } }) : 0;
    if (found === 0) throw notFound('Contact');
  }

  private async linkage(tx: TenantTx, contactId: string, linkageId: string): Promise<LinkageRow> {
    const row = isUuid(linkageId) ? await tx.contactLinkage.findFirst({ where: { id: linkageId, contact_id: contactId } }) : null;
    if (!row) throw notFound('ContactLinkage');
    return row as LinkageRow;
  }

  private transaction<T>(ctx: RequestContext, fn: (tx: TenantTx) => Promise<T>): Promise<T> {
    return runAsTenant(ctx.principal.accountId, () => inTransaction(this.db, fn));
  }

  list(ctx: RequestContext, contactId: string): Promise<WireLinkage[]> {
    return runAsTenant(ctx.principal.accountId, async () => {
      await this.liveContact(this.db, contactId);
      const rows = await this.db.contactLinkage.findMany({ where: { contact_id: contactId }, orderBy: [...linkageOrder] });
      return (rows as LinkageRow[]).map(serializeLinkage);
    });
  }

  create(ctx: RequestContext, contactId: string, sent: ActionInput): Promise<WireLinkage> {
    return this.transaction(ctx, async (tx) => {
      await this.liveContact(tx, contactId);
      const input = readActionInput(sent, INPUT_KEY);
      const errors: FieldErrors = {};
      const link = checkLinkInput(input, errors);
      throwIfErrors(errors);
      return serializeLinkage(await linkContact(tx, ctx, contactId, link!, this.clock.now()));
    });
  }

  update(ctx: RequestContext, contactId: string, linkageId: string, sent: ActionInput): Promise<WireLinkage> {
    return this.transaction(ctx, async (tx) => {
      // The documented order of checks: the records exist (404) before the input is validated (422).
      await this.liveContact(tx, contactId);
      let row = await this.linkage(tx, contactId, linkageId);
      const input = readActionInput(sent, INPUT_KEY);
      const errors: FieldErrors = {};
      for (const key of Object.keys(input)) {
        if (key === 'linkable_id' || key === 'linkable_type') addError(errors, key, 'cannot be changed; link the contact to the new record instead');
        else if (key !== 'relationship_type' && key !== 'primary') addError(errors, key, NOT_PERMITTED);
      }
      checkCommon(input, errors);
      throwIfErrors(errors);
      await lockLinkable(tx, row.linkable_type as LinkableType, row.linkable_id);
      await lockContact(tx, contactId);
      row = await this.linkage(tx, contactId, linkageId);
      const now = this.clock.now();
      if (input.primary === false && row.is_primary) {
        throw new AppError(
          'contact.primary_linkage',
          `This contact is the primary contact of the ${row.linkable_type}; make another contact primary instead of unsetting it.`,
        );
      }
      if (input.primary === true && !row.is_primary) await demotePrimary(tx, ctx, row.linkable_type, row.linkable_id, now);
      const data: Record<string, unknown> = { updated_at: now };
      if (input.relationship_type !== undefined) data.relationship_type = input.relationship_type;
      if (input.primary === true) data.is_primary = true;
      await tx.contactLinkage.updateMany({ where: { id: row.id }, data });
      const updated = await this.linkage(tx, contactId, linkageId);
      await event(tx, ctx, updated, 'updated', row);
      return serializeLinkage(updated);
    });
  }

  remove(ctx: RequestContext, contactId: string, linkageId: string): Promise<void> {
    return this.transaction(ctx, async (tx) => {
      await this.liveContact(tx, contactId);
      let row = await this.linkage(tx, contactId, linkageId);
      await lockLinkable(tx, row.linkable_type as LinkableType, row.linkable_id);
      await lockContact(tx, contactId);
      row = await this.linkage(tx, contactId, linkageId);
      if (row.is_primary) {
        throw new AppError(
          'contact.primary_linkage',
          `This contact is the primary contact of the ${row.linkable_type}. Link another contact as primary first, then unlink this one.`,
        );
      }
      await tx.contactLinkage.deleteMany({ where: { id: row.id } });
      await event(tx, ctx, row, 'deleted');
    });
  }
}

/**
 * Moves every linkage of one record to another (lead conversion: the lead's contacts to its new customer),
 * primaries kept, with a contact_linkage.updated event each. The target must have no linkages yet (a record
 * just created), so that neither the one-link-per-pair nor the one-primary rule can be broken by the move.
 */
export async function moveLinkages(tx: TenantTx, ctx: RequestContext, from: { type: LinkableType; id: string }, to: { type: LinkableType; id: string }, now: Date): Promise<void> {
  const where = { linkable_type: from.type, linkable_id: from.id };
  const rows = (await tx.contactLinkage.findMany({ where, orderBy: [...linkageOrder] })) as LinkageRow[];
  if (rows.length === 0) return;
  await tx.contactLinkage.updateMany({ where: { id: { in: rows.map((row) => row.id) } }, data: { linkable_type: to.type, linkable_id: to.id, updated_at: now } });
  for (const row of rows) await event(tx, ctx, { ...row, linkable_type: to.type, linkable_id: to.id, updated_at: now }, 'updated', row);
}

/** Removes every linkage to the given records (their records are being deleted); emits their events. */
export async function unlinkRecords(tx: TenantTx, ctx: RequestContext, type: LinkableType, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const rows = (await tx.contactLinkage.findMany({ where: { linkable_type: type, linkable_id: { in: ids } } })) as LinkageRow[];
  if (rows.length === 0) return;
  await tx.contactLinkage.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
  for (const row of rows) await event(tx, ctx, row, 'deleted');
}

declare module '../../kernel/action.ts' {
  /** The actions' name for this service (src/domain.ts provides it). */
  interface DomainServices {
    linkages: ContactLinkageService;
  }
}
