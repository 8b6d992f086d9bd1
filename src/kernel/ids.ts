import { v7 as uuidv7, validate, version } from 'uuid';

/** A new UUID v7 (time-ordered; random bits from the platform's CSPRNG). */
export function newId(): string {
  return uuidv7();
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && validate(value);
}

export function isUuidV7(value: unknown): value is string {
  return isUuid(value) && version(value) === 7;
}
