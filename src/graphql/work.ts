import type { ObjectRef } from '@pothos/core';
import type { WireRecord } from '../kernel/resource-service.ts';
import type { Scope } from '../kernel/scopes.ts';
import type { GraphQLResolveInfo } from 'graphql';
import type { Builder, GraphQLContext } from './builder.ts';
import { fieldReadsChildren, selectedChildren } from './selection.ts';
import { loadersOf, type RecordName, type WireUser } from './loaders.ts';
import type { RecordShape, ResourceTypes } from './resource-schema.ts';
import { wireObject } from './wire-object.ts';
import { userShape } from '../resources/accounts/user.shape.ts';
import { systemOptionShape } from '../resources/lookups/lookup.shapes.ts';

// Relations of the work records (jobs, estimates, systems, line items), in the manner of relations.ts:
//   Job.customer / .site / .contact / .system / .assignees / .estimate
//   Estimate.customer / .site / .contact / .system / .taxRate / .convertedJob
//   Lineitem.item / .taxRate (Job.lineitems and Estimate.lineitems share the Lineitem type)
//   System.site, Site.systems, Customer.jobs, Customer.estimates
//   System.systemOption, Site.systemOption (the shared catalog entry; no scope beyond the parent's)
// Each relation reads through the operation's loaders (batched, tenant-scoped, live records only, serialized by
// the resource's service) and needs the read scope of what it returns, except Job.assignees: assigned users are
// part of the job (as assignments[].user_id), so jobs:read suffices.

function shape(record: WireRecord): RecordShape {
  return { record, etag: null };
}

/** A live record by id through its loader, or null (no id, deleted, or another tenant's). */
async function byId(ctx: GraphQLContext, name: RecordName, id: unknown, info: GraphQLResolveInfo): Promise<RecordShape | null> {
  if (typeof id !== 'string') return null;
  const record = await loadersOf(ctx).record(name, selectedChildren(ctx.domain.resource(name).def, info)).load(id);
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
  const User = wireObject(builder, userShape);

  /** `<field>: <Type>` resolved from the parent's `<column>` (a uuid) through the target's record loader. */
  const reference = (parent: ObjectRef<any, RecordShape>, field: string, target: RecordName, column: string, description: string) =>
    builder.objectField(parent, field, (t) =>
      t.field({
        type: types[target].record,
        nullable: true,
        description: `${description} (needs ${readScope[target]}).`,
        authScopes: { scope: readScope[target] },
        resolve: (p, _args, ctx, info) => byId(ctx, target, p.record[column], info),
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
        resolve: async (p, _args, ctx, info) =>
          (await loadersOf(ctx).recordsBy(target, column, selectedChildren(ctx.domain.resource(target).def, info)).load(p.record.id as string)).map(shape),
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
  const SystemOption = wireObject(builder, systemOptionShape);
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

  fieldReadsChildren('job', 'assignees', 'assignments');
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
        resolve: (line, _args, ctx, info) => byId(ctx, target, line[column], info),
      }),
    );
  lineReference('item', 'item', 'item_id', 'The price book item of the line; null when unset or deleted');
  lineReference('taxRate', 'tax_rate', 'tax_rate_id', 'The tax rate of the line; null when unset or deleted');

  return { User };
}
