import { z } from 'zod';
import type { ErrorCode } from '../kernel/errors.ts';
import type { FieldSpec } from '../kernel/fields.ts';
import type { ResourceDefinition } from '../kernel/resource.ts';
import type { Scope } from '../kernel/scopes.ts';
import { relationshipTypes } from '../resources/contacts/contact-linkage.service.ts';
import { linkableTypes } from '../resources/contacts/linkables.ts';
import { convertLeadScopes } from '../resources/leads/lead-conversion.service.ts';
import { bodyObject, createSchema, notAccepted, served, writeShape } from './openapi-schemas.ts';

// The routes api-router.ts mounts beyond the five standard endpoints of each resource, declared once for the
// OpenAPI document: path, scopes, body, success response and the codes of their own rules. openapi.ts turns
// each entry into an operation (security, headers, error responses) the same way as the standard ones; the
// codes every authenticated route gives (authentication, version, scope, body parsing, 404 of a path id) are
// added by openapi-errors.ts from the shape of the entry.

export type StandardKind = 'list' | 'create' | 'get' | 'update' | 'delete';

/** The registered schemas an extra operation can refer to. */
export interface SchemaRefs {
  /** The record schema of a standard resource, by name ("lead"). */
  record(resource: string): z.ZodType;
  /** The declaration of a standard resource, by name. */
  definition(resource: string): ResourceDefinition;
  /** A component declared in `extraComponents`. */
  component(name: string): z.ZodType;
}

export interface ExtraOperation {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Path under /api/v2 in OpenAPI syntax; {id} is the record id of `resource`. */
  path: string;
  operationId: string;
  /** The resource (by name) whose tag lists the operation and whose record {id} names. */
  resource: string;
  summary: string;
  description: string;
  /** Every scope the operation needs (all of them); none: any valid key. */
  scopes: Scope[];
  /** Query parameters (strict: any other parameter is refused with the codes in `errors`). */
  query?: () => z.ZodObject;
  /** Path parameters other than {id}, with their descriptions. */
  params?: Record<string, string>;
  /** The JSON body: the record travels under `key` (none: the body carries no record, e.g. an empty object). */
  body?: { key?: string; required: boolean; schema: (refs: SchemaRefs) => z.ZodType; description?: string };
  ok: { status: 200 | 201 | 204; description: string; schema?: (refs: SchemaRefs) => z.ZodType; headers?: ('Location' | 'ETag')[] };
  /** Codes of the operation's own rules (the common ones are derived from the entry's shape). */
  errors: ErrorCode[];
  /** Standard operations whose rules this one also runs (convert creates a customer): their codes apply too. */
  includes?: { kind: StandardKind; resource: string }[];
}

// ---- contact linkages ----

/** The written fields of a linkage with their create/update rules (contact-linkage.service.ts checks them). */
export const linkageFields: Record<string, FieldSpec> = {
  linkable_id: { kind: 'uuid', create: 'required', update: 'not_accepted', nullable: false, description: 'Id of the live Customer, Lead or Site of this account to link to.' },
  linkable_type: { kind: 'string', enum: linkableTypes, create: 'required', update: 'not_accepted', nullable: false },
  relationship_type: { kind: 'string', enum: relationshipTypes, create: 'optional', update: 'optional', nullable: false, description: 'Default associated.' },
  primary: {
    kind: 'boolean',
    create: 'optional',
    update: 'optional',
    nullable: false,
    description: "Whether the contact is the record's primary contact; at most one per record.",
  },
};

const linkageRules =
  'Rules: (1) the first contact linked to a record becomes its primary whatever primary says; (2) a later link is not primary unless primary is true, which moves the primary to this contact and demotes the previous one; (3) PATCH primary true does the same; PATCH primary false is accepted only on a linkage that is not primary (on the primary: 409 contact.primary_linkage; make another contact primary instead); (4) DELETE of the primary\'s linkage is 409 contact.primary_linkage (link the replacement first); (5) at most one primary per record, also under concurrent requests. No If-Match.';

const linkageId = { linkage_id: 'Linkage id (UUID v7) of this contact. Unknown, of another contact or of another account: 404 resource.not_found.' };

/**
 * A linkage request body: the fields at the top level, as the spec's endpoint table lists them, or under the key
 * "linkage" like every other resource's body. Not both: "linkage" beside any other member is 422 validation.failed
 * naming that member (recordFromBody with topLevel).
 */
const linkageBody = (fields: z.ZodType) =>
  z.union([fields, z.object({ linkage: fields }).strict()]).openapi({
    description:
      'Either the fields themselves ({"linkable_id": ..., "linkable_type": "Customer", "primary": true}) or the same fields under the key "linkage" ({"linkage": {...}}). A body with "linkage" and any other member is ambiguous: 422 validation.failed naming each other member. Unknown fields are refused in both shapes.',
  });

/** Components the extra operations use, registered in this order under these names. */
const linkageComponents: Record<string, (refs: SchemaRefs) => z.ZodType> = {
  ContactLinkage: () =>
    z
      .object({
        id: served.id(),
        contact_id: served.uuid(),
        ...Object.fromEntries(Object.entries(linkageFields).map(([name, spec]) => [name, served.field(spec)])),
        created_at: served.timestamp(),
        updated_at: served.timestamp(),
      })
      .openapi({ description: 'One link between a contact and a Customer, Lead or Site.' }),
  ContactLinkageCreate: () =>
    bodyObject(
      writeShape(linkageFields, 'create'),
      'Linkage create fields: the body itself (as the spec lists them) or the value of its key "linkage".',
      notAccepted(linkageFields, 'create'),
    ),
  ContactLinkageUpdate: () =>
    bodyObject(
      writeShape(linkageFields, 'update'),
      'Linkage update fields, the body itself (as the spec lists them) or the value of its key "linkage": relationship_type and/or primary. linkable_id and linkable_type answer 422 validation.failed ("cannot be changed"): link the contact to the new record instead.',
      notAccepted(linkageFields, 'update'),
    ),
  ContactLinkageCreateRequest: (refs) => linkageBody(refs.component('ContactLinkageCreate')),
  ContactLinkageUpdateRequest: (refs) => linkageBody(refs.component('ContactLinkageUpdate')),
  ContactLinkageResponse: (refs) => z.object({ data: refs.component('ContactLinkage') }),
  ContactLinkageList: (refs) =>
    z.object({
      data: z.array(refs.component('ContactLinkage')).openapi({ description: 'Oldest first.' }),
      has_more: z.boolean().openapi({ description: 'Always false: the linkages of a contact are not paginated.' }),
    }),
  LeadConversionCustomer: (refs) =>
    createSchema(refs.definition('customer')).partial().openapi({
      description:
        'Customer create fields that override or add to the values taken from the lead (organization: the lead\'s organization, else its first and last name; description; assignee_id; main_phone: the lead\'s phone). Same rules as POST /customers; unknown fields are refused.',
    }),
  LeadConversionRequest: (refs) =>
    z.object({ customer: refs.component('LeadConversionCustomer').optional() }).openapi({ description: 'Optional: without a body (or without "customer") the customer is made from the lead alone.' }),
  LeadConversionResponse: (refs) =>
    z.object({
      data: z.object({
        lead: refs.record('lead'),
        customer: refs.record('customer'),
      }).openapi({
        description:
          "lead: the lead, now with converted_customer_id and converted_at (status Converted when that status is live); customer: the new customer, owning the lead's sites and contact linkages.",
      }),
    }),
};

// ---- estimate conversion ----

const estimateConversionComponents: Record<string, (refs: SchemaRefs) => z.ZodType> = {
  EstimateConversionRequest: () =>
    z
      .object({})
      .strict()
      .openapi({ description: 'Empty: the job is made from the estimate alone. No body or {} is accepted; any field answers 422 validation.failed (errors.body).' }),
  EstimateConversionResponse: (refs) =>
    z.object({
      data: z.object({
        estimate: refs.record('estimate'),
        job: refs.record('job'),
      }).openapi({
        description:
          'estimate: the estimate, now with converted_job_id and converted_at; job: the new job, with estimate_id, the estimate\'s customer_id, site_id, contact_id, system_id, title, scope_of_work, job_type, reference and customer_notes, and a copy of every line (item_id, description, quantity, unit_price, discount, tax_rate_id, taxable, labor_visible), so its amount equals the estimate\'s.',
      }),
    }),
};

// ---- system options ----

/** The fields of a system option as LookupService.systemOptions serves them. */
const systemOptionShape = () => ({
  id: served.id(),
  system_type: z.string().openapi({ description: 'Kind of equipment the option belongs to (a system\'s system_type).' }),
  name: z.string(),
  position: z.number().int().openapi({ description: 'Display order within the catalog.' }),
});

export const extraComponents: Record<string, (refs: SchemaRefs) => z.ZodType> = {
  ...linkageComponents,
  ...estimateConversionComponents,
  SystemOption: () =>
    z.object(systemOptionShape()).openapi({ description: 'An entry of the shared, read-only system options catalog (a system\'s or site\'s system_option_id).' }),
  SystemOptionList: (refs) =>
    z.object({
      data: z.array(refs.component('SystemOption')).openapi({ description: 'Ordered by position, then name.' }),
      has_more: z.boolean().openapi({ description: 'Always false: the catalog is not paginated.' }),
    }),
};

export const extraOperations: ExtraOperation[] = [
  {
    method: 'get',
    path: '/contacts/{id}/linkages',
    operationId: 'listContactLinkages',
    resource: 'contact',
    summary: "List a contact's linkages",
    description: 'Every linkage of the contact, oldest first. Not paginated (has_more is always false); takes no list parameters.',
    scopes: ['contacts:read'],
    ok: { status: 200, description: 'The linkages.', schema: (refs) => refs.component('ContactLinkageList') },
    errors: [],
  },
  {
    method: 'post',
    path: '/contacts/{id}/linkages',
    operationId: 'createContactLinkage',
    resource: 'contact',
    summary: 'Link a contact to a customer, lead or site',
    description: `Answers 201 with Location (no ETag). A record of another account or none, or a record the contact is already linked to: 422 validation.failed naming linkable_id. ${linkageRules}`,
    scopes: ['contacts:write'],
    body: { key: 'linkage', required: true, schema: (refs) => refs.component('ContactLinkageCreateRequest') },
    ok: { status: 201, description: 'The new linkage.', schema: (refs) => refs.component('ContactLinkageResponse'), headers: ['Location'] },
    errors: ['validation.failed'],
  },
  {
    method: 'patch',
    path: '/contacts/{id}/linkages/{linkage_id}',
    operationId: 'updateContactLinkage',
    resource: 'contact',
    summary: 'Change a linkage (relationship type, primary)',
    description: `No If-Match. ${linkageRules}`,
    scopes: ['contacts:write'],
    params: linkageId,
    body: { key: 'linkage', required: true, schema: (refs) => refs.component('ContactLinkageUpdateRequest') },
    ok: { status: 200, description: 'The linkage.', schema: (refs) => refs.component('ContactLinkageResponse') },
    errors: ['validation.failed', 'contact.primary_linkage'],
  },
  {
    method: 'delete',
    path: '/contacts/{id}/linkages/{linkage_id}',
    operationId: 'deleteContactLinkage',
    resource: 'contact',
    summary: 'Unlink a contact',
    description: `Removes the link; the contact stays. No If-Match. ${linkageRules}`,
    scopes: ['contacts:write'],
    params: linkageId,
    ok: { status: 204, description: 'Unlinked.' },
    errors: ['contact.primary_linkage'],
  },
  {
    method: 'post',
    path: '/leads/{id}/convert',
    operationId: 'convertLead',
    resource: 'lead',
    summary: 'Convert a lead into a customer',
    description:
      "In one transaction: creates a customer from the lead (the optional body's \"customer\" overrides or adds customer fields), moves the lead's sites and contact linkages to it (primary contacts stay primary) and marks the lead converted. Answers 201 with Location of the new customer (no ETag). A lead converts once: again, 409 lead.already_converted. Needs both scopes.",
    scopes: [...convertLeadScopes],
    body: { key: 'customer', required: false, schema: (refs) => refs.component('LeadConversionRequest') },
    ok: { status: 201, description: 'The converted lead and the new customer.', schema: (refs) => refs.component('LeadConversionResponse'), headers: ['Location'] },
    errors: ['lead.already_converted'],
    includes: [{ kind: 'create', resource: 'customer' }],
  },
  {
    method: 'post',
    path: '/estimates/{id}/convert',
    operationId: 'convertEstimate',
    resource: 'estimate',
    summary: 'Convert an accepted estimate into a job',
    description:
      "In one transaction: creates a job from an estimate whose status is Accepted (customer, site, contact, system, title, scope of work, job type, reference, customer notes and a copy of every line, at the estimate's prices and tax rates), records the estimate on the job (estimate_id) and the job on the estimate (converted_job_id, converted_at): what an invoice needs later. The job obeys the current rules of POST /jobs (module settings, live site, required custom fields): a violation is 422 validation.failed naming the field. Takes no body (or {}). Answers 201 with Location of the new job (no ETag). An estimate in another status: 409 estimate.not_accepted; an estimate converts once: again, 409 estimate.already_converted. Needs both scopes.",
    scopes: ['estimates:write', 'jobs:write'],
    body: { required: false, schema: (refs) => refs.component('EstimateConversionRequest') },
    ok: { status: 201, description: 'The converted estimate and the new job.', schema: (refs) => refs.component('EstimateConversionResponse'), headers: ['Location'] },
    errors: ['validation.failed', 'estimate.not_accepted', 'estimate.already_converted'],
    includes: [{ kind: 'create', resource: 'job' }],
  },
  {
    method: 'get',
    path: '/system_options',
    operationId: 'listSystemOptions',
    resource: 'system',
    summary: 'List system options',
    description:
      'The system options catalog, shared by every account and read-only (the values of system_option_id on systems and sites), ordered by position, then name. Not paginated: has_more is always false. Needs a valid key, no scope. Takes system_type only; any other parameter, or system_type twice: 400 filter.invalid.',
    scopes: [],
    query: () =>
      z
        .object({
          system_type: z
            .string()
            .optional()
            .openapi({ param: { description: 'Only the options of this system_type (exact, case-sensitive match); omitted: every option.' } }),
        })
        .strict(),
    ok: { status: 200, description: 'The system options.', schema: (refs) => refs.component('SystemOptionList') },
    errors: ['filter.invalid'],
  },
];
