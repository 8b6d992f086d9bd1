import type { RequestContext } from './context.ts';
import { addError, NOT_PERMITTED, throwIfErrors, zodIssuesToErrors } from './body.ts';
import type { ErrorCode, FieldErrors } from './errors.ts';
import { valueSchema, type FieldKind, type FieldSpec } from './fields.ts';
import type { Single } from './resource-service.ts';
import type { Scope } from './scopes.ts';
import { assertStorableBody, printable, unstorableFields } from './storable.ts';
import type { WireShape } from './wire-shape.ts';

// An action: an operation of a resource beyond its five standard ones (convert a lead, link a contact ...),
// declared once with its resource. The REST route (src/rest/api-router.ts), its OpenAPI operation
// (src/rest/openapi-operations.ts) and its GraphQL query or mutation (src/graphql/schema/actions.ts) are generated from
// the declaration, as is its MCP tool (src/mcp/tools.ts): the path, the scopes, the body or query parameters, the
// service call and the answer are written nowhere else.
//
// Every adapter hands the service the same input, the field values by their declared names (ActionCall.input),
// each having read them from its own request in its own way: so rules, results and error codes are the same on
// every API, and no adapter speaks another's wire format.

/** The input of an action, and how REST carries it: under `key` in the JSON body, as every resource's record is. */
export type ActionBody =
  | {
      /** The request's fields, with their create/update rules (see FieldSpec). */
      fields: Readonly<Record<string, FieldSpec>>;
      /** Which of the fields' rules apply. */
      mode: 'create' | 'update';
      key: string;
      required: boolean;
      /** The fields may also be sent at the top level of the body instead of under `key` (REST only). */
      topLevel?: boolean;
      description: string;
    }
  | {
      /** The create fields of another resource (by name), every one optional: overrides of what the action derives. */
      overrides: string;
      /**
       * Create fields the action does not take, each with the message refusing it (422 validation.failed naming it,
       * whichever adapter sent it): the documents leave them out of the body (REST) and the input (GraphQL).
       */
      except?: Readonly<Record<string, string>>;
      key: string;
      required: false;
      description: string;
    }
  | {
      /** The action takes no input: no body, or `{}`. */
      empty: true;
      /**
       * The message (422 validation.failed on `body`) refusing any other REST body, before the action runs (GraphQL
       * has no argument to send one). Without one, a body sent is not read: the webhook endpoint actions have
       * always accepted one, and clients may rely on it.
       */
      refusal?: string;
      required: false;
      description: string;
    };

/**
 * The input of a GET action: parameters, each a FieldSpec of a kind a query string can carry (QUERY_KINDS; a string
 * may be an enum, an integer a range), required when `create` is 'required' (`update` is not read: say
 * 'not_accepted'), described by its `description`. REST reads them from the query string, GraphQL as arguments of
 * the query field (camelCase), MCP as arguments of the tool; each adapter hands over the values it was given, typed
 * as far as its wire types them (REST turns "20" into 20 for an integer, and leaves text it cannot read as text),
 * and the kernel checks them against the declaration when the service reads its input (queryInput below): so a
 * value out of range, of the wrong type or missing is the same 422 validation.failed naming the parameter on every
 * API, after the records the path names are found. Omitted and null are absent; a default is the service's, and
 * the parameter's description says it.
 */
export interface ActionQuery {
  fields: Readonly<Record<string, FieldSpec>>;
}

/** The field kinds a query parameter may have: each has a one-line text form, and a scalar on every API. */
export const QUERY_KINDS: readonly FieldKind[] = ['string', 'integer', 'boolean', 'date', 'datetime', 'uuid'];

/** What a successful action answers. */
export type ActionResponse =
  | {
      /** Records of resources (by name) under these keys, each with its ETag: `{"data": {"lead": {...}, "customer": {...}}}`. */
      records: Readonly<Record<string, string>>;
      status: 200 | 201;
      /** The key whose record the Location header names (201). */
      location?: string;
      description: string;
    }
  | {
      /** One object of a wire shape: `{"data": {...}}`; GraphQL wraps it in `<Shape>Payload { <key> }`. */
      shape: WireShape;
      key: string;
      status: 200 | 201;
      /** The path of the created object, under /api/v2, for the Location header (201). */
      location?: (value: Record<string, unknown>) => string;
      description: string;
    }
  | {
      /** A list of a wire shape, not paginated: `{"data": [...], "has_more": false}`. */
      list: WireShape;
      status: 200;
      description: string;
    }
  | {
      /** Nothing: 204 (GraphQL answers the id of what was removed, the last path parameter). */
      status: 204;
      description: string;
    };

/**
 * The domain's services an action may call, by name. Empty here: each service that actions call adds itself where
 * it is defined (`declare module '../../kernel/action.ts' { interface DomainServices { billing: BillingService } }`),
 * so the kernel names no service and the domain (src/domain.ts) must provide every one that is declared.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DomainServices {}

/**
 * An action's input: its field values by their declared names (the snake_case keys of `fields`, or the fields of
 * the resource it `overrides`, or the parameters of its `query`, which come checked and typed: queryInput); {}
 * when it takes none or none was given. A function the service calls where it checks its input, the pattern of
 * ResourceService.update: the documented order of checks has the records exist (404) before their input is
 * refused (422), and an adapter's own refusal of what it received (a REST body of the wrong shape, an unknown
 * query parameter) is one of those 422s, so it must come at that point too.
 */
export type ActionInput = () => Record<string, unknown>;

/**
 * Reads an action's input, its text checked for what PostgreSQL cannot store (src/kernel/storable.ts) whichever
 * adapter it came from, so a NUL is a 422 naming the field and never a 500; a key holding such text is reported
 * under `key`, the name of the input (ActionBody `key`). Before any rule of the service reads the values.
 */
export function readActionInput(input: ActionInput, key: string): Record<string, unknown> {
  const values = input();
  assertStorableBody(values, key);
  return values;
}

/** What the service call of an action receives. */
export interface ActionCall {
  domain: DomainServices;
  ctx: RequestContext;
  /** The id of the resource's record in the path. */
  id: string;
  /** The other path parameters, by their wire names. */
  params: Readonly<Record<string, string>>;
  /** The input, by declared names, read when the service calls it (see ActionInput; readActionInput checks it). */
  input: ActionInput;
}

/**
 * An action's declaration. Its input is either a `body` (POST, PATCH, DELETE: a JSON body on REST, an input
 * argument on GraphQL, a member of the tool's arguments on MCP) or, for a GET action, `query` parameters (REST's
 * query string, arguments of the GraphQL query field, arguments of the tool), never both. Parameters are their own
 * member rather than a `fields` body of the GET: a body's key, its create/update mode and its GraphQL input type
 * mean nothing for a read, and each adapter gives parameters as its reads take them (REST's list parameters,
 * GraphQL's list arguments), which a body variant would have to undo per method. `action()` refuses a `query` on
 * any other method, or beside a body, when the declaration loads.
 */
export interface ActionDefinition {
  /** The GraphQL field and the OpenAPI operationId: "convertLead". */
  name: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  /** The path under the record, `{param}` for further parameters: "/convert", "/linkages/{linkage_id}". */
  path: string;
  /** Further path parameters with their descriptions. */
  params?: Readonly<Record<string, string>>;
  /** Every scope the caller needs, checked in this order. */
  scopes: readonly Scope[];
  summary: string;
  /** The rules, for both APIs' documentation. */
  description: string;
  /** The input of a POST, PATCH or DELETE action (a GET action's input is `query`). */
  body?: ActionBody;
  /** The query parameters of a GET action (ActionQuery): its input, by the parameters' names. */
  query?: ActionQuery;
  response: ActionResponse;
  /** The service call. */
  run(call: ActionCall): Promise<unknown>;
  /** Event types the action appends to the outbox (`<resource>.<verb>`), beyond those of the records it writes. */
  events: readonly string[];
  /** Codes of the action's own rules (the codes every route gives are derived from its shape). */
  errors: readonly ErrorCode[];
  /**
   * A financial create (an action that creates an invoice): REST needs an Idempotency-Key header and GraphQL an
   * idempotencyKey argument (src/kernel/idempotency.ts); the service refuses to run without ctx.idempotency and
   * completes it with its result inside its transaction. Only for a `records` response with a location.
   */
  idempotent?: boolean;
  /** Standard operations whose rules the action also runs (converting a lead creates a customer): their codes apply too. */
  includes?: readonly { kind: 'list' | 'create' | 'get' | 'update' | 'delete'; resource: string }[];
  /**
   * GraphQL names, when not the defaults: the field (`name`), the record id argument ("id") and the body argument
   * ("input"). GraphQL reads name fields as nouns (`contactLinkages`) where REST operation ids are verbs.
   */
  graphql?: { field?: string; idArg?: string; bodyArg?: string };
}

/** The records of a `records` response, as the services return them. */
export type ActionRecords = Record<string, Single>;

/**
 * The values of a query input as the service reads them: each parameter given (not null) checked against its
 * FieldSpec (valueSchema: type, range, enum, length; datetime as a Date), a required one that is missing refused
 * ('is missing'), any other name refused as an unknown body member is ('is not a permitted field', the name
 * printable-escaped), and text PostgreSQL cannot store refused under the parameter's name. All of a request's
 * errors together, 422 validation.failed.
 */
export function queryInput(fields: Readonly<Record<string, FieldSpec>>, given: Record<string, unknown>): Record<string, unknown> {
  const errors: FieldErrors = {};
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(given)) if (!Object.hasOwn(fields, name)) addError(errors, printable(name), NOT_PERMITTED);
  for (const [name, spec] of Object.entries(fields)) {
    const value = Object.hasOwn(given, name) ? given[name] : undefined;
    if (value === undefined || value === null) {
      if (spec.create === 'required') addError(errors, name, 'is missing');
      continue;
    }
    const unstorable = unstorableFields(value, name);
    if (Object.keys(unstorable).length > 0) {
      for (const [field, messages] of Object.entries(unstorable)) for (const message of messages) addError(errors, field, message);
      continue;
    }
    const parsed = valueSchema(spec).safeParse(value);
    if (parsed.success) values[name] = parsed.data;
    else for (const [field, messages] of Object.entries(zodIssuesToErrors(parsed.error, name))) for (const message of messages) addError(errors, field, message);
  }
  throwIfErrors(errors);
  return values;
}

/** A declaration's mistakes that no adapter could serve, found when the module loads. */
function checkDeclaration(definition: ActionDefinition): void {
  const query = definition.query;
  if (!query) return;
  if (definition.method !== 'get') throw new Error(`${definition.name}: only a GET action takes query parameters; a ${definition.method} action takes a body`);
  if (definition.body) throw new Error(`${definition.name}: a GET action takes its input as query parameters, not a body`);
  for (const [name, spec] of Object.entries(query.fields)) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`${definition.name}: query parameter ${name} is not a snake_case name`);
    if (!QUERY_KINDS.includes(spec.kind)) throw new Error(`${definition.name}: query parameter ${name} is of kind ${spec.kind}; a query parameter is one of ${QUERY_KINDS.join(', ')}`);
    if (spec.enum && spec.kind !== 'string') throw new Error(`${definition.name}: query parameter ${name} has an enum but is not a string`);
    if (!spec.description) throw new Error(`${definition.name}: query parameter ${name} has no description (every API documents it)`);
  }
}

/** Declares an action (checked against ActionDefinition, keeping its literal types). */
export function action<const A extends ActionDefinition>(definition: A): A {
  checkDeclaration(definition);
  const query = definition.query;
  if (query) {
    // The parameters are checked where the service reads its input, as a body's fields are.
    return { ...definition, run: (call: ActionCall) => definition.run({ ...call, input: () => queryInput(query.fields, call.input()) }) };
  }
  const body = definition.body;
  const except = body && 'overrides' in body ? body.except : undefined;
  if (!except) return definition;
  // The fields the action does not take are refused where the service reads its input, as its own checks are.
  return {
    ...definition,
    run: (call: ActionCall) =>
      definition.run({
        ...call,
        input: () => {
          const values = call.input();
          const errors: FieldErrors = {};
          for (const [name, message] of Object.entries(except)) if (values[name] !== undefined) addError(errors, name, message);
          throwIfErrors(errors);
          return values;
        },
      }),
  };
}
