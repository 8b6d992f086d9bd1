import type { Prisma } from '../generated/prisma/client.ts';
import type { TenantClient, TenantTx } from './tenancy.ts';

// Declarations name their Prisma models by string (ResourceDefinition.model, ChildCollection.model, a field's
// references.model); this is the one place such a name becomes the delegate of the tenant client or transaction.

/** Every model's row as Prisma reads it (every column), by the name of its delegate: `customer`, `jobAssignment` ... */
type ModelRows = { [Model in Prisma.ModelName as Uncapitalize<Model>]: Prisma.TypeMap['model'][Model]['payload']['scalars'] };

/** A model of the generated Prisma client, named as its delegate (`tx.jobAssignment`): what declarations name. */
export type ModelName = keyof ModelRows;

/** A row of the model, typed as Prisma reads it. */
export type ModelRow<Model extends ModelName> = ModelRows[Model];

/** A row of a resource's table as Prisma reads it: every column, plus what the ETag is made of. */
export type RecordRow = Record<string, unknown> & { id: string; updated_at: Date; lock_version: number };

/** The operations the kernel runs on a model named by a declaration. */
export interface ModelDelegate {
  findFirst(args: object): Promise<RecordRow | null>;
  findMany(args: object): Promise<RecordRow[]>;
  count(args: object): Promise<number>;
  create(args: object): Promise<RecordRow>;
  updateMany(args: object): Promise<{ count: number }>;
  deleteMany(args: object): Promise<{ count: number }>;
}

export function modelDelegate(db: TenantTx | TenantClient, model: string): ModelDelegate {
  return (db as unknown as Record<string, ModelDelegate>)[model];
}
