import type { FieldSpec } from '../../kernel/fields.ts';
import { z } from './zod.ts';

// Decimal fields travel as strings: accepted as a decimal string or a JSON number, always served as a string
// with exactly the field's scale.

/** Bounds and places of a decimal field, as decimalSchema() in src/kernel/fields.ts checks them. */
function decimalRules(spec: FieldSpec): { scale: number; min: number; max: number } {
  const [min, max] = spec.range ?? [0, 9_999_999_999];
  return { scale: spec.scale ?? 2, min, max };
}

/** A decimal as accepted on write: a decimal string or a JSON number, at most `scale` places, within its range. */
export function decimalInputSchema(spec: FieldSpec): z.ZodType {
  const { scale, min, max } = decimalRules(spec);
  const fraction = scale > 0 ? `(\\.\\d{1,${scale}})?` : '';
  // The field's description (decimalNote) says what each alternative is.
  return z.union([z.string().regex(new RegExp(`^-?\\d{1,10}${fraction}$`)), z.number().min(min).max(max)]);
}

/** A decimal as served: always a string with exactly `scale` places (never a JSON number). */
export function decimalServedSchema(spec: FieldSpec): z.ZodType {
  const { scale } = decimalRules(spec);
  return z.string().regex(new RegExp(scale > 0 ? `^-?\\d+\\.\\d{${scale}}$` : '^-?\\d+$')).openapi({ format: 'decimal' });
}

/**
 * What a decimal field's description adds to the convention the info states once for every decimal (served as a
 * string with the places its pattern shows; written as a decimal string or a JSON number): on write, its bounds.
 */
export function decimalNote(spec: FieldSpec, mode: 'write' | 'served'): string | undefined {
  if (mode === 'served') return undefined;
  const { scale, min, max } = decimalRules(spec);
  return `${min} to ${max}, at most ${scale} decimal places.`;
}
