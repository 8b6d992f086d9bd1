import { maxLength, type FieldSpec } from './fields.ts';
import type { FilterSpec, ListSpec, SortSpec } from './listing.ts';
import type { ScopeResource } from './scopes.ts';
import type { ErrorCode, FieldErrors } from './errors.ts';
import type { RequestContext } from './context.ts';
import type { TenantClient, TenantTx } from './tenancy.ts';
import type { ResourceService, Single } from './resource-service.ts';
import type { DomainSettings } from './settings.ts';
import type { TopicCatalog } from './topics.ts';
import type { ActionDefinition } from './action.ts';
import type { Relations } from './relation.ts';
import type { ModelName, RecordRow } from './model-delegates.ts';
import type { EventAction } from './events.ts';

/** Other resources' services, for hooks that cascade (e.g. a customer's sites). */
export type ResourceLookup = (name: string) => ResourceService;

// A resource declares only what is its own; every shared convention (ids, timestamps, ETag, number, status,
// labels, custom_fields, list parameters, events, soft delete) is applied by the kernel's resource service
// and adapters from this declaration. Declaration files write it with defineResource (define-resource.ts), which
// types the hooks' `Values` and `Row` from the declaration; the kernel sees the defaults below.

/** What the domain hands every hook: the other resources' services, the settings, the topic catalog. */
export interface HookDeps {
  resources: ResourceLookup;
  /** The server's settings that rules depend on (config, src/kernel/settings.ts). */
  settings: DomainSettings;
  /** Every event topic (built by the domain from the declarations: src/events/topics.ts). */
  topics: TopicCatalog;
}

/** What every hook gets: the operation's transaction, the request and the domain's dependencies. */
export interface HookArgs extends HookDeps {
  tx: TenantTx;
  ctx: RequestContext;
}

/** What afterCommit gets: the write committed; the record as it was answered so far. */
export interface CommitHookArgs extends HookDeps {
  ctx: RequestContext;
  mode: 'create' | 'update';
  single: Single;
  /** The record before an update (null on create). */
  before: Record<string, unknown> | null;
  /** The record under the body key, as sent. */
  input: Record<string, unknown>;
  /** The tenant client, for the hook's own transactions (src/kernel/tenancy.ts inTransaction). */
  db: TenantClient;
}

export interface WriteHookArgs<Values = Record<string, unknown>, Row = RecordRow> extends HookArgs {
  mode: 'create' | 'update';
  /** The record under the body key, as sent. */
  input: Record<string, unknown>;
  /** Validated values about to be written (wire names); hooks may add columns or remove write-only fields. */
  values: Values;
  /** Validated child entries per collection; undefined means "not supplied" (hooks may supply defaults). */
  children: Record<string, Record<string, unknown>[] | undefined>;
  /** The record before the change (update only). */
  existing: Row | null;
  errors: FieldErrors;
  /** The time of the write (the service's clock, which tests may move). */
  now: Date;
}

export interface AfterWriteArgs<Values = Record<string, unknown>, Row = RecordRow> extends HookArgs {
  mode: 'create' | 'update';
  input: Record<string, unknown>;
  /** The row as written. */
  row: Row;
  /** What beforeWrite left in values (including write-only fields it kept for afterWrite). */
  values: Values;
  /** The children each collection written by this write had before it (rows as stored; empty on create). */
  previousChildren: Record<string, Record<string, unknown>[]>;
}

export interface DeleteHookArgs<Row = RecordRow> extends HookArgs {
  /** The record before it was deleted. */
  row: Row;
}

/** A list of child rows owned by the record and written with it (phone numbers, line items). */
export interface ChildCollection {
  /** Prisma delegate of the child rows. */
  model: ModelName;
  /** SQL table of the child rows (list pages read them directly). */
  table: string;
  /** Column of the child that holds the parent id. */
  foreignKey: string;
  /** Writable fields of an entry (an entry may also carry the id of an existing child). */
  fields: Record<string, FieldSpec>;
  /** Wire name of one entry in messages and docs: "phone number". */
  label: string;
  /**
   * The collection is served and written as a plain list of this field's values (a job's asset_ids: ids, not
   * entries with ids): `fields` holds that one field. A write sends the whole list (a snapshot: a value kept keeps
   * its row, a new value adds one, a value left out is removed); the entries' own ids are never served.
   */
  valueField?: string;
  /** What the entries are (served and written); `{wire_name}` markers name fields (api-text.ts). */
  description?: string;
  /** How a write treats the collection (snapshot semantics, defaults): on write bodies and inputs only. */
  writeRule?: string;
  /** Fields computed by the server and served with each entry (line totals). */
  readOnly?: Record<string, ReadOnlyField>;
  /**
   * Completes the entries of one write before they are stored, all at once (so rules can span entries and
   * lookups can be batched): each `entry` holds the stored values of an existing child merged with what was
   * sent; the hook fills defaults and computed fields in place, or adds errors (keyed under each `at`).
   */
  compute?(args: ChildComputeArgs): Promise<void>;
}

export interface ChildComputeEntry<Entry = Record<string, unknown>> {
  /** What will be stored: the existing child's values, then what was sent (storage values). */
  entry: Entry;
  /** The entry as sent (validated storage values, without id). */
  sent: Entry;
  /** The child before this write; null when the entry creates a child. */
  previous: Record<string, unknown> | null;
  /** Error key prefix of this entry: "lineitems.2". */
  at: string;
}

export interface ChildComputeArgs<Entry = Record<string, unknown>> {
  tx: TenantTx;
  ctx: RequestContext;
  /** The parent row as written. */
  parent: RecordRow;
  /** The entries of the write, in order. */
  entries: ChildComputeEntry<Entry>[];
  /** The parent's children before this write (empty on create). */
  existing: Record<string, unknown>[];
  errors: FieldErrors;
}

export interface ReadOnlyField {
  scale?: number;
  kind: FieldSpec['kind'];
  nullable: boolean;
  /** The served value is one of these (documentation only: the field is never written by clients). */
  enum?: readonly string[];
  /** The value is the id of a record of this model (gives a relation, see relation.ts). */
  references?: FieldSpec['references'];
  description?: string;
}

/** The five standard operations of a resource. */
export type StandardOperation = 'list' | 'create' | 'get' | 'update' | 'delete';

/** The REST collection path of the resource, under /api/v2, without the leading slash: "customers". */
export function restPath(def: Pick<ResourceDefinition, 'plural' | 'path'>): string {
  return def.path ?? def.plural;
}

/** The key of the record in write bodies: `{"customer": {...}}`. */
export function bodyKeyOf(def: Pick<ResourceDefinition, 'name' | 'bodyKey'>): string {
  return def.bodyKey ?? def.name;
}

/** The class of the resource's labels and custom field definitions (ResourceDefinition conventions.lookupsOf). */
export function lookupClassOf(def: Pick<ResourceDefinition, 'className' | 'conventions'>): string {
  return def.conventions.lookupsOf ?? def.className;
}

/** Whether the resource serves the operation (ResourceDefinition.operations). */
export function serves(def: ResourceDefinition, operation: StandardOperation): boolean {
  return def.operations === undefined || def.operations.includes(operation);
}

export interface ResourceDefinition {
  /** Body key and GraphQL stem: "customer". */
  name: string;
  /** Path segment: "customers". */
  plural: string;
  /** The key of the record in write bodies when not the name: `{"endpoint": {...}}`. */
  bodyKey?: string;
  /** The REST collection path under /api/v2 when not the plural: "webhooks/endpoints". */
  path?: string;
  /** The rate bucket of every REST request on the resource's paths (default: read for GET, write otherwise). */
  rateBucket?: 'webhook_ingest';
  /** Resource class for lookups (related_name) and events: "Customer". */
  className: string;
  /** Prisma delegate: "customer" (a model of the generated client). */
  model: ModelName;
  /** SQL table: "customers". */
  table: string;
  scope: ScopeResource;
  description: string;
  /** Writable fields of the resource itself, in wire (snake_case) names. */
  fields: Record<string, FieldSpec>;
  /** Fields served but never written by clients (kept by the service or the database). */
  readOnly?: Record<string, ReadOnlyField>;
  /** Child collections written with the record: snapshot-replaced on update, served inside the record. */
  children?: Record<string, ChildCollection>;
  /** Fields accepted on write but not stored as columns (consumed by hooks) and not served. */
  writeOnly?: readonly string[];
  conventions: {
    number?: boolean;
    /** The statuses every account starts with (the first is the status of a new record); seeded for existing accounts at start. */
    status?: { defaults: readonly [string, ...string[]] };
    labels?: boolean;
    customFields?: boolean;
    softDelete?: boolean;
    /**
     * The class whose labels and custom field definitions the record's labels and custom_fields are, when not its
     * own: a template carries those of the records it makes (a recurring job's are the Job's, checked by the job's
     * rules). Such a resource is no related_name of its own (lookupClassOf).
     */
    lookupsOf?: string;
  };
  list: {
    filters: Record<string, FilterSpec>;
    sorts: Record<string, SortSpec>;
    defaultSort: string;
    /**
     * What `q` searches: the resource's own columns that its `search_text` column is made of (the migration's
     * SQL; test/rest/declared-sql.test.ts checks they agree), and how the documents describe the search (by
     * default the fields, in words: "name, number and email"; say more when search_text also holds text of other
     * records, "... and customer organization").
     */
    search?: { fields: readonly string[]; text?: string };
  };
  /**
   * Problem codes the resource's own hooks raise on an operation, beyond what the kernel answers there (e.g. a
   * beforeDelete refusal). Documentation only: the OpenAPI document lists them on that operation.
   */
  errors?: Partial<Record<'list' | 'create' | 'get' | 'update' | 'delete', readonly ErrorCode[]>>;
  /**
   * The standard operations served (default: all five). A ledger serves list, get and create (entries are never
   * changed); a table the server derives serves list and get. REST routes, OpenAPI operations and GraphQL
   * mutations exist only for these.
   */
  operations?: readonly StandardOperation[];
  /**
   * A financial create (invoices, payments ...): POST needs an Idempotency-Key and GraphQL's create mutation an
   * idempotencyKey (src/kernel/idempotency.ts).
   */
  idempotentCreate?: boolean;
  /** Reverse and polymorphic links to other records (forward links come from `references`; see relation.ts). */
  relations?: Relations;
  /**
   * The records are nested under records of other resources (a note on a job): `relation` names the resource's
   * polymorphic relation to its parent, whose type and id columns are set from the parent on create and never
   * change (they are read-only fields). The list and create are served under each parent's record (REST
   * `/<parent path>/{id}/<plural>`, GraphQL a connection on the parent's type and a create mutation naming the
   * parent); get, update and delete at the resource's own path (declare `operations: ['get', 'update', 'delete']`).
   * The resource has no read scope of its own: reading a record needs the read scope of its parent's resource,
   * writing also `<scope>:write` (src/kernel/nesting.ts). A record whose parent is not live is not found.
   */
  nested?: { relation: string };
  /**
   * SQL ORDER BY of this resource's records under one parent (a collection relation such as Customer.sites), over
   * the row alias `t`; default `t.created_at, t.id` (oldest first).
   */
  siblingOrder?: string;
  /**
   * The events the resource's records emit, for the topic catalog (src/events/topics.ts). By default one per
   * standard write it serves (created, updated, deleted) and status_changed with a status; `actions` replaces
   * that list (a derived table's writes), `extra` adds topics of its actions (estimate.converted), and
   * `requiresModule` makes the topics unavailable to accounts with that module off.
   */
  events?: {
    actions?: readonly EventAction[];
    extra?: readonly { action: EventAction; description: string }[];
    requiresModule?: 'System';
    /**
     * Filters of the resource's typed GraphQL subscription (`<resource>Events(filter)`) beyond `ids` (and
     * `statuses`, with the status convention): `window`, a datetime field that `from` and `to` select on; `members`,
     * a child collection whose entries' `key` the filter argument `name` (e.g. assigneeIds) selects on.
     */
    subscriptionFilters?: {
      window?: string;
      members?: { name: string; collection: string; key: string; description: string };
    };
  };
  /** Operations beyond the five standard ones (REST, OpenAPI and GraphQL are generated from them). */
  actions?: readonly ActionDefinition[];
  /** Unique indexes whose violation is a validation error on a field. */
  uniqueIndexes?: Record<string, { field: string; message: string }>;
  hooks?: {
    /** Resource-specific rules, run inside the write transaction before the row is written. */
    beforeWrite?(args: WriteHookArgs): Promise<void>;
    /** Work that needs the written row (linking, cascading), inside the same transaction. */
    afterWrite?(args: AfterWriteArgs): Promise<void>;
    /**
     * Refusals of a change by who asks (only a note's author or an admin may change it): run on update and delete
     * once the record is found and the caller may read it, before If-Match is compared and before the input is read.
     */
    authorizeChange?(args: { ctx: RequestContext; row: RecordRow; operation: 'update' | 'delete' }): void;
    /** Refusals of a delete (after the record was found, before it is deleted). */
    beforeDelete?(args: DeleteHookArgs): Promise<void>;
    /** Cascades of a delete, inside the same transaction. */
    afterDelete?(args: DeleteHookArgs): Promise<void>;
    /**
     * Work after a create or update committed that decides the answer (a webhook endpoint's verification
     * handshake, which calls out over the network and must not hold a transaction): returns the record to answer,
     * or throws the problem to answer instead (what was committed stays).
     */
    afterCommit?(args: CommitHookArgs): Promise<Single>;
  };
}

export interface RecordFieldInfo {
  name: string;
  kind: FieldSpec['kind'] | 'json' | 'string[]' | 'children';
  nullable: boolean;
  description?: string;
  /** For kind 'children': the collection. */
  children?: ChildCollection;
  /** For kind 'decimal': decimal places written. */
  scale?: number;
  /** The value is one of these (a named vocabulary is a GraphQL enum, src/kernel/vocabulary.ts). */
  enum?: readonly string[];
  /** The most characters of a text kind's value, the most entries of a string list (fields.ts maxLength). */
  max?: number;
}

/** Whether a written field may be served as null: unless required on create or declared always set. */
function servedNullable(spec: FieldSpec): boolean {
  return spec.create !== 'required' && spec.alwaysSet !== true;
}

/** The fields of a record as served: id, own fields, convention fields, timestamps. */
export function outputFields(def: ResourceDefinition): RecordFieldInfo[] {
  const out: RecordFieldInfo[] = [{ name: 'id', kind: 'uuid', nullable: false, description: `The id of the ${def.name.replace(/_/g, ' ')} (a UUID v7 the server assigns).` }];
  if (def.conventions.number) {
    out.push({ name: 'number', kind: 'string', nullable: false, description: 'The number of the record, unique in the account: the next in sequence unless given on create; never changes.' });
  }
  const writeOnly = new Set(def.writeOnly ?? []);
  for (const [name, spec] of Object.entries(def.fields)) {
    if (writeOnly.has(name)) continue;
    out.push({ name, kind: spec.kind, nullable: servedNullable(spec), description: spec.description, scale: spec.scale, enum: spec.enum, max: maxLength(spec) });
  }
  for (const [name, spec] of Object.entries(def.readOnly ?? {})) out.push({ name, ...spec });
  if (def.conventions.status) out.push({ name: 'status', kind: 'string', nullable: false, description: `The status: the {display_name} of a live ${def.className} status.` });
  if (def.conventions.labels) out.push({ name: 'labels', kind: 'string[]', nullable: false, description: `The labels of the record: {display_name} values of ${lookupClassOf(def)} labels.` });
  if (def.conventions.customFields) {
    out.push({ name: 'custom_fields', kind: 'json', nullable: false, description: `Custom field values keyed by ${lookupClassOf(def)} custom field definition id. An attachment field's value is an object of the file's id, name, content type, size and SHA-256, and its url: a signed download link valid for an hour.` });
  }
  for (const [name, children] of Object.entries(def.children ?? {})) {
    out.push({ name, kind: 'children', nullable: false, description: children.description, children });
  }
  out.push(
    { name: 'created_at', kind: 'datetime', nullable: false, description: 'When the record was created.' },
    { name: 'updated_at', kind: 'datetime', nullable: false, description: 'When the record was last changed.' },
  );
  return out;
}

/** How the kernel's list statements read a resource's table (src/kernel/list-sql.ts). */
export function listSpecOf(def: ResourceDefinition): ListSpec {
  return {
    resource: def.plural,
    table: def.table,
    columns: selectColumns(def),
    live: def.conventions.softDelete ? 'deleted_at IS NULL' : undefined,
    filters: def.list.filters,
    sorts: def.list.sorts,
    defaultSort: def.list.defaultSort,
    searchColumn: def.list.search ? 'search_text' : undefined,
    customFields: def.conventions.customFields,
  };
}

/** SQL columns read for a record (serialised fields plus what the ETag needs). */
export function selectColumns(def: ResourceDefinition): string[] {
  return [...outputFields(def).filter((f) => f.kind !== 'children').map((f) => f.name), 'lock_version'];
}

/** The field whose values a collection is served and written as (ChildCollection.valueField), if it is such a list. */
export function valueFieldOf(children: ChildCollection): { name: string; spec: FieldSpec } | undefined {
  const name = children.valueField;
  if (name === undefined) return undefined;
  const spec = children.fields[name];
  if (!spec || Object.keys(children.fields).length !== 1) throw new Error(`child collection ${children.label}: valueField ${name} must be its only field`);
  return { name, spec };
}

/** The fields of one child entry as served: id and its own fields. */
export function childOutputFields(children: ChildCollection): RecordFieldInfo[] {
  return [
    { name: 'id', kind: 'uuid', nullable: false, description: `The id of the ${children.label} (a UUID v7 the server assigns).` },
    ...Object.entries(children.fields).map(([name, spec]) => ({ name, kind: spec.kind, nullable: servedNullable(spec), description: spec.description, scale: spec.scale, enum: spec.enum, max: maxLength(spec) })),
    ...Object.entries(children.readOnly ?? {}).map(([name, spec]) => ({ name, ...spec })),
  ];
}

/** What `q` searches, in words (ResourceDefinition.list.search): its text, or its fields ("name, number and email"). */
export function searchDescription(def: Pick<ResourceDefinition, 'list'>): string | undefined {
  const search = def.list.search;
  if (!search) return undefined;
  if (search.text) return search.text;
  const words = search.fields.map((field) => field.replace(/_/g, ' '));
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)}` : words[0];
}
