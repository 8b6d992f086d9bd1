import type { FieldErrors } from './errors.ts';
import type { ResourceDefinition } from './resource.ts';

/** Maps a unique-index violation raised by the database to the field it protects, if it is one we know. */
export function uniqueViolation(def: ResourceDefinition, error: unknown): FieldErrors | null {
  const e = error as { code?: string; meta?: unknown; message?: string };
  const text = `${e?.message ?? ''} ${JSON.stringify(e?.meta ?? {})}`;
  if (e?.code !== 'P2002' && !text.includes('23505') && !/unique/i.test(text)) return null;
  for (const [index, target] of Object.entries(def.uniqueIndexes ?? {})) {
    if (text.includes(index)) return { [target.field]: [target.message] };
  }
  return null;
}
