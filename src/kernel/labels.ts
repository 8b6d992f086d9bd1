import { addError } from './body.ts';
import type { FieldErrors } from './errors.ts';

/** Validates a labels value against the live labels of the resource; returns the de-duplicated list. */
export function checkLabels(value: unknown, allowed: readonly string[], className: string, errors: FieldErrors): string[] | undefined {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    addError(errors, 'labels', 'must be an array of strings');
    return undefined;
  }
  const known = new Set(allowed);
  for (const label of value as string[]) {
    if (!known.has(label)) addError(errors, 'labels', `"${label}" is not a label of ${className}`);
  }
  return [...new Set(value as string[])];
}
