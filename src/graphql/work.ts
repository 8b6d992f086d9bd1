import type { ObjectRef } from '@pothos/core';
import { requireScope } from '../kernel/auth.ts';
import type { Single, WireRecord } from '../kernel/resource-service.ts';
import type { Scope } from '../kernel/scopes.ts';
import { requestContext, type Builder, type GraphQLContext } from './builder.ts';
import { loadersOf, written, type RecordName, type WireUser } from './loaders.ts';
import { systemOptionType } from './lookups.ts';
import type { RecordShape, ResourceTypes } from './resource-schema.ts';
import { wireObject } from './wire-object.ts';

// Relations of the work records (issue 4), in the manner of relations.ts:
//   Job.customer / .site / .contact / .system / .assignees / .estimate
//   Estimate.customer / .site / .contact / .system / .taxRate / .convertedJob
//   Lineitem.item / .taxRate (Job.lineitems and Estimate.lineitems share the Lineitem type)
//   System.site, Site.systems, Customer.jobs, Customer.estimates
//   System.systemOption, Site.systemOption (the shared catalog entry; no scope beyond the parent's)
// and convertEstimate (domain.estimateConversion; REST POST /estimates/{id}/convert).
// Each relation reads through the operation's loaders (batched, tenant-scoped, live records only, serialized by
// the resource's service) and needs the read scope of what it returns, except Job.assignees: assigned users are
// part of the job (as assignments[].user_id), so jobs:read suffices.

function shape(record: WireRecord): RecordShape {
  return { record, etag: null };
}

/** A live record by id through its loader, or null (no id, deleted, or another tenant's). */
async function byId(ctx: GraphQLContext, name: RecordName, id: unknown): Promise<RecordShape | null> {
  if (typeof id !== 'string') return null;
  const record = await loadersOf(ctx).record(name).load(id);
  return record ? shape(record) : null;
}

const readScope: Record<RecordName, Scope> = {
  customer: 'customers:read',
  lead: 'leads:read',
  site: 'sites:read',
  contact: 'contacts:read',
  system: 'systems:read',
  item: 'items:read',
  tax_rate: 'tax_rates:read',
  job: 'jobs:read',
  estimate: 'estimates:read',
};

export interface WorkTypes {
  User: ObjectRef<any, WireUser>;
}

export function registerWorkRelations(builder: Builder, types: Record<RecordName, ResourceTypes>): WorkTypes {
  const User = wireObject<WireUser>(builder, 'User', 'A user of the account (an assignee).', [
    { wire: 'id', type: 'SafeInt' },
    { wire: 'name', type: 'String' },
    { wire: 'email', type: 'String' },
    { wire: 'role', type: 'String', description: 'admin, office or technician.' },
  ]);

  /** `<field>: <Type>` resolved from the parent's `<column>` (a uuid) through the target's record loader. */
  const reference = (parent: ObjectRef<any, RecordShape>, field: string, target: RecordName, column: string, description: string) =>
    builder.objectField(parent, field, (t) =>
      t.field({
        type: types[target].record,
        nullable: true,
        description: `${description} (needs ${readScope[target]}).`,
        authScopes: { scope: readScope[target] },
        resolve: (p, _args, ctx) => byId(ctx, target, p.record[column]),
      }),
    );
  /** `<field>: [Type]`: live records of `target` whose `column` is the parent's id, oldest first. */
  const collection = (parent: ObjectRef<any, RecordShape>, field: string, target: RecordName, column: string, description: string) =>
    builder.objectField(parent, field, (t) =>
      t.field({
        type: [types[target].record],
        nullable: true,
        description: `${description}, oldest first, not paginated (needs ${readScope[target]}).`,
        authScopes: { scope: readScope[target] },
        resolve: async (p, _args, ctx) => (await loadersOf(ctx).recordsBy(target, column).load(p.record.id as string)).map(shape),
      }),
    );

  const { job: Job, estimate: Estimate, system: System, site: Site, customer: Customer } = Object.fromEntries(
    Object.entries(types).map(([name, value]) => [name, value.record]),
  ) as Record<RecordName, ObjectRef<any, RecordShape>>;

  for (const [parent, noun] of [[Job, 'job'], [Estimate, 'estimate']] as const) {
    reference(parent, 'customer', 'customer', 'customer_id', `The ${noun}'s customer; null when unset or deleted`);
    reference(parent, 'site', 'site', 'site_id', `The ${noun}'s service address; null when unset or deleted`);
    reference(parent, 'contact', 'contact', 'contact_id', `The ${noun}'s contact; null when unset or deleted`);
    reference(parent, 'system', 'system', 'system_id', `The ${noun}'s system; null when unset or deleted`);
  }
  reference(Job, 'estimate', 'estimate', 'estimate_id', 'The estimate this job was converted from, while it is live');
  reference(Estimate, 'taxRate', 'tax_rate', 'tax_rate_id', 'The default tax rate of new lines');
  reference(Estimate, 'convertedJob', 'job', 'converted_job_id', 'The job made by convertEstimate, while it is live');
  reference(System, 'site', 'site', 'site_id', 'The site the system is installed at');
  collection(Site, 'systems', 'system', 'site_id', 'Live systems installed at the site');
  const SystemOption = systemOptionType(builder);
  for (const [parent, noun] of [[System, 'system'], [Site, 'site']] as const) {
    builder.objectField(parent, 'systemOption', (t) =>
      t.field({
        type: SystemOption,
        nullable: true,
        description: `The ${noun}'s entry of the system options catalog (systemOptionId); null when unset. The catalog is readable by any key.`,
        resolve: async (p, _args, ctx) => {
          const id = p.record.system_option_id;
          return typeof id === 'string' ? loadersOf(ctx).systemOption.load(id) : null;
        },
      }),
    );
  }
  collection(Customer, 'jobs', 'job', 'customer_id', "Live jobs of the customer");
  collection(Customer, 'estimates', 'estimate', 'customer_id', 'Live estimates of the customer');

  builder.objectField(Job, 'assignees', (t) =>
    t.field({
      type: [User],
      description: 'The users assigned to the job, in the order of assignments (jobs:read suffices).',
      resolve: async (job, _args, ctx) => {
        const assignments = (job.record.assignments as { user_id: number }[] | undefined) ?? [];
        const users = await loadersOf(ctx).user.loadMany(assignments.map((a) => String(a.user_id)));
        const failed = users.find((u) => u instanceof Error);
        if (failed) throw failed;
        return (users as (WireUser | null)[]).filter((u) => u !== null);
      },
    }),
  );

  const Lineitem = types.job.children.lineitems;
  const lineReference = (field: string, target: RecordName, column: string, description: string) =>
    builder.objectField(Lineitem, field, (t) =>
      t.field({
        type: types[target].record,
        nullable: true,
        description: `${description} (needs ${readScope[target]}).`,
        authScopes: { scope: readScope[target] },
        resolve: (line, _args, ctx) => byId(ctx, target, line[column]),
      }),
    );
  lineReference('item', 'item', 'item_id', 'The price book item of the line; null when unset or deleted');
  lineReference('taxRate', 'tax_rate', 'tax_rate_id', 'The tax rate of the line; null when unset or deleted');

  const ConvertEstimatePayload = builder.objectRef<{ estimate: Single; job: Single }>('ConvertEstimatePayload').implement({
    description: 'The converted estimate (with convertedJobId) and the new job; each carries its new ETag (estimate.etag, job.etag).',
    fields: (t) => ({
      estimate: t.field({ type: Estimate, resolve: (parent) => ({ record: parent.estimate.record, etag: parent.estimate.etag }) }),
      job: t.field({ type: Job, resolve: (parent) => ({ record: parent.job.record, etag: parent.job.etag }) }),
    }),
  });

  builder.mutationField('convertEstimate', (t) =>
    t.field({
      type: ConvertEstimatePayload,
      nullable: true,
      description:
        'Turns an Accepted estimate into a job with a copy of its lines, in one transaction (needs estimates:write and jobs:write); as POST /api/v2/estimates/{id}/convert. Converts once (estimate.already_converted); another status is estimate.not_accepted.',
      authScopes: { scope: 'estimates:write' },
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, args, ctx) => {
        requireScope(ctx.principal, 'jobs:write');
        return written(ctx, ctx.domain.estimateConversion.convert(requestContext(ctx), String(args.id), undefined));
      },
    }),
  );

  return { User };
}
