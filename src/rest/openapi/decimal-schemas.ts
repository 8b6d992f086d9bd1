import { decimalPattern, decimalRules, type FieldSpec } from '../../kernel/fields.ts';
import { z } from './zod.ts';

// Decimal fields travel as strings: accepted as a decimal string or a JSON number, always served as a string
// with exactly the field's scale. Bounds, places and the string pattern are the kernel's (decimalSchema() in
// src/kernel/fields.ts checks them).

/**
 * A decimal as accepted on write: a decimal string or a JSON number, at most `scale` places, within its range. The
 * string's pattern has no minus sign when the range starts at 0 or above: no negative value is accepted there.
 */
export function decimalInputSchema(spec: FieldSpec): z.ZodType {
  const { scale, min, max } = decimalRules(spec);
  // The field's description (decimalNote) says what each alternative is.
  return z.union([z.string().regex(decimalPattern(scale, min < 0)), z.number().min(min).max(max)]);
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
