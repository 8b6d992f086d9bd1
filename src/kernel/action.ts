import type { RequestContext } from './context.ts';
import { addError, throwIfErrors } from './body.ts';
import type { ErrorCode, FieldErrors } from './errors.ts';
import type { FieldSpec } from './fields.ts';
import type { Single } from './resource-service.ts';
import type { Scope } from './scopes.ts';
import { assertStorableBody } from './storable.ts';
import type { WireShape } from './wire-shape.ts';

// An action: an operation of a resource beyond its five standard ones (convert a lead, link a contact ...),
// declared once with its resource. The REST route (src/rest/api-router.ts), its OpenAPI operation
// (src/rest/openapi-operations.ts) and its GraphQL query or mutation (src/graphql/schema/actions.ts) are generated from
// the declaration: the path, the scopes, the body, the service call and the answer are written nowhere else.
//
// Every adapter hands the service the same input, the field values by their declared names (ActionCall.input),
// each having read them from its own request in its own way: so rules, results and error codes are the same on
// both APIs, and no adapter speaks another's wire format.

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
 * the resource it `overrides`); {} when it takes none or none was given. A function the service calls where it
 * checks its input, the pattern of ResourceService.update: the documented order of checks has the records exist
 * (404) before their input is refused (422), and an adapter's own refusal of what it received (a REST body of
 * the wrong shape) is one of those 422s, so it must come at that point too.
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
  body?: ActionBody;
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

/** Declares an action (checked against ActionDefinition, keeping its literal types). */
export function action<const A extends ActionDefinition>(definition: A): A {
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
