import type { ResourceDefinition } from '../../kernel/resource.ts';
import type { ListRequest, ListRequestDraft, ValueType } from '../../kernel/listing.ts';
import type { ErrorSubject } from '../../kernel/errors.ts';
import { camelCase } from '../../kernel/naming.ts';
import { listTexts } from './descriptions.ts';
import type { ScalarName } from './field-types.ts';

// The filter arguments of a resource's list, and the list request (kernel/listing.ts ListRequest) they make. A
// refusal names its subject (a filter and its operator, a custom field, the page size ...): graphqlSubjectName
// words it with the argument the caller wrote.

/** One filter field of a resource's list: its GraphQL name and type, and what it adds to the list request. */
export interface ListArgument {
  name: string;
  type: ScalarName | [ScalarName] | 'CustomFieldFilter';
  /** The enum of the filtered field (a named vocabulary types the argument by its GraphQL enum). */
  enum?: readonly string[];
  description: string;
  /** Adds the argument's value to the request. */
  apply(value: unknown, request: ListRequestDraft): void;
}

const filterScalar: Record<ValueType, ScalarName> = { string: 'String', uuid: 'ID', date: 'Date', datetime: 'DateTime', integer: 'SafeInt', decimal: 'Decimal', boolean: 'Boolean' };
const opSuffix = { eq: '', in: 'In', gt: 'Gt', gte: 'Gte', lt: 'Lt', lte: 'Lte' } as const;

/** The filter fields of a resource's list (its filters, q and custom_fields). */
export function filterFields(def: ResourceDefinition): ListArgument[] {
  const args: ListArgument[] = [];
  if (def.list.search) {
    args.push({ name: 'q', type: 'String', description: listTexts.q(def), apply: (v, request) => void (request.q = String(v)) });
  }
  for (const [field, spec] of Object.entries(def.list.filters)) {
    const scalar = filterScalar[spec.type];
    const values = def.fields[field]?.enum ?? def.readOnly?.[field]?.enum;
    for (const op of spec.ops) {
      const name = `${camelCase(field)}${opSuffix[op]}`;
      const description = listTexts.filter(field, op);
      if (op === 'in') {
        args.push({ name, type: [scalar], enum: values, description, apply: (v, request) => void request.filters.push({ field, op, value: (v as unknown[]).map(String) }) });
      } else {
        args.push({ name, type: scalar, enum: values, description, apply: (v, request) => void request.filters.push({ field, op: op === 'eq' ? undefined : op, value: String(v) }) });
      }
    }
  }
  if (def.conventions.customFields) {
    args.push({
      name: 'customFields',
      type: 'CustomFieldFilter',
      description: listTexts.customFields,
      apply: (v, request) => void request.customFields.push(...(v as { id: string; value: string }[]).map((f) => ({ id: f.id, value: f.value }))),
    });
  }
  return args;
}

/** The list request of a connection's arguments: page, filter values (null and omitted are absent) and sort. */
export function listRequest(
  args: ListArgument[],
  page: { first?: number | null; after?: string | null },
  filter: Record<string, unknown> | null | undefined,
  sort: { field: string; direction: string } | null | undefined,
): ListRequest {
  const request: ListRequestDraft = { filters: [], customFields: [] };
  for (const arg of args) {
    const value = filter?.[arg.name];
    if (value !== undefined && value !== null) arg.apply(value, request);
  }
  return {
    ...request,
    ...(page.first !== undefined && page.first !== null ? { limit: page.first } : {}),
    ...(page.after !== undefined && page.after !== null ? { cursor: page.after } : {}),
    ...(sort ? { sort: `${sort.direction === 'desc' ? '-' : ''}${sort.field}` } : {}),
  };
}

/** A list refusal's subject as the caller wrote it over GraphQL: first, after, sort, filter.q, filter.statusIn, filter.customFields[<id>]. */
export function graphqlSubjectName(subject: ErrorSubject): string {
  switch (subject.kind) {
    case 'limit':
      return 'first';
    case 'cursor':
      return 'after';
    case 'sort':
      return 'sort';
    case 'q':
      return 'filter.q';
    case 'custom_field':
      return `filter.customFields[${subject.id}]`;
    case 'parameter':
      return camelCase(subject.name);
    case 'filter':
      return `filter.${camelCase(subject.field)}${opSuffix[(subject.op ?? 'eq') as keyof typeof opSuffix] ?? ''}`;
  }
}
