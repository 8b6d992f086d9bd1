import { defineResource } from '../../kernel/define-resource.ts';
import { AppError } from '../../kernel/errors.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { notableModels, notableTypes } from './notables.ts';

// Notes: plain text a user writes on a record of the tenant (its parent: notable_type / notable_id, notables.ts).
// A nested resource (src/kernel/nesting.ts): listed and created under the parent's record, read, changed and
// deleted at /notes/{id}; read with the parent's read scope, written with notes:write as well. The body is stored
// and served exactly as written and never rendered (not HTML, not Markdown). A note is not part of its parent: it
// leaves the parent's ETag and updated_at as they are. Only its author or an admin may change or delete it.

/** The most characters of a note's body. */
export const NOTE_BODY_MAX = 10_000;

export const noteResource = defineResource({
  name: 'note',
  description:
    'A note a user wrote on a record of the account (a customer, a job, an invoice ...): plain text, served exactly as written and never rendered. Only its author or an admin may change or delete it.',
  fields: {
    body: {
      kind: 'text',
      create: 'required',
      update: 'optional',
      nullable: false,
      max: NOTE_BODY_MAX,
      verbatim: true,
      description: 'The text of the note: plain text, stored and served exactly as written (not trimmed); clients show it as text, not as HTML or Markdown.',
      writeRule: `Not blank; at most ${NOTE_BODY_MAX.toLocaleString('en-US')} characters.`,
    },
    pinned: {
      kind: 'boolean',
      create: 'optional',
      update: 'optional',
      nullable: false,
      alwaysSet: true,
      description: 'Whether the note is pinned (shown first by clients that pin notes).',
      writeRule: 'Default: false.',
    },
  },
  readOnly: {
    notable_type: { kind: 'string', nullable: false, enum: notableTypes, description: 'The type of the record the note is on; set when the note is created, never changed.' },
    notable_id: { kind: 'uuid', nullable: false, description: 'The id of the record the note is on; set when the note is created, never changed.' },
    author_id: {
      kind: 'int64',
      nullable: false,
      references: { model: 'user', label: 'user of this account' },
      description: 'Id of the user who wrote the note (the user of the API key that created it).',
    },
  },
  conventions: { softDelete: true },
  operations: ['get', 'update', 'delete'],
  nested: { relation: 'notable' },
  relations: {
    notable: {
      kind: 'polymorphic',
      typeColumn: 'notable_type',
      idColumn: 'notable_id',
      models: notableModels,
      union: { name: 'Notable', description: 'A record a note can be on.' },
      description: 'The record the note is on, while it is live.',
    },
  },
  events: { actions: ['created', 'updated', 'deleted'] },
  errors: { update: ['auth.permission_denied'], delete: ['auth.permission_denied'] },
  list: {
    filters: { pinned: ['eq'], created_at: rangeOps, updated_at: rangeOps },
    sorts: { created_at: true, updated_at: true },
    defaultSort: '-created_at',
  },
  hooks: {
    async beforeWrite({ mode, values, ctx }) {
      if (mode === 'create') values.author_id = Number(ctx.principal.user.id);
    },
    authorizeChange({ ctx, row }) {
      if (row.author_id !== ctx.principal.user.id && ctx.principal.user.role !== 'admin') {
        throw new AppError('auth.permission_denied', 'Only the author of the note or an admin may change or delete it.');
      }
    },
  },
});
