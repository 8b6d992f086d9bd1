import type { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';

// Parameters every operation of a path takes (the record id, the version and request-id headers) are stated once,
// on the path item: OpenAPI applies a path item's parameters to each of its operations. zod-to-openapi writes
// parameters per operation only, so the shared ones are moved up once the document is generated.

type Paths = NonNullable<ReturnType<OpenApiGeneratorV31['generateDocument']>['paths']>;
type Parameters = NonNullable<NonNullable<Paths[string]['get']>['parameters']>;

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** A shared parameter component every operation refers to, by its reference. */
const refOf = (parameter: Parameters[number]) => ('$ref' in parameter ? parameter.$ref : undefined);

/** The paths, each with the parameter references all of its operations share stated once on the path item. */
export function withPathParameters(paths: Paths): Paths {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => {
      const operations = methods.flatMap((method) => item[method] ?? []);
      const everywhere = (ref: string) => operations.every((op) => op.parameters?.some((p) => refOf(p) === ref));
      const shared = (operations[0]?.parameters ?? []).filter((p) => {
        const ref = refOf(p);
        return ref !== undefined && everywhere(ref);
      });
      if (shared.length === 0) return [path, item];
      const sharedRefs = new Set(shared.map(refOf));
      // Each operation keeps its other parameters, in place (none: no parameters key).
      const own = (op: object) =>
        Object.fromEntries(
          Object.entries(op).flatMap(([key, value]) => {
            if (key !== 'parameters') return [[key, value]];
            const kept = (value as Parameters).filter((p) => !sharedRefs.has(refOf(p)));
            return kept.length ? [[key, kept]] : [];
          }),
        );
      return [path, { parameters: shared, ...Object.fromEntries(Object.entries(item).map(([method, op]) => [method, own(op)])) }];
    }),
  );
}
