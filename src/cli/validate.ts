import { z } from 'zod';
import { accountModuleValues, type AccountModules } from '../kernel/context.ts';
import { customFieldTypes } from '../kernel/lookups.ts';
import { roles, type Role } from '../kernel/permissions.ts';
import type { Scope } from '../kernel/scopes.ts';
import type { ApiVersions } from '../kernel/versioning.ts';
import { allScopes, isScope, relatedNames } from '../domain.ts';

// Parsing and validation of command-line values. Every failure is a UsageError whose message names the
// option and says what is accepted; nothing touches the database before these pass.

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

function usage(message: string): never {
  throw new UsageError(message);
}

const uuid = z.guid();
const email = z.email();
const isoDateTime = z.iso.datetime({ offset: true });
const isoDate = z.iso.date();

export function parseUuid(label: string, value: string | undefined): string {
  if (value === undefined || value === '') usage(`${label} is required`);
  const trimmed = value.trim();
  if (!uuid.safeParse(trimmed).success) usage(`${label} must be a UUID, got "${value}"`);
  return trimmed.toLowerCase();
}

/** User ids are int64 on the wire; the ones the database hands out fit a JS number. */
export function parseUserId(label: string, value: string | undefined): number {
  if (value === undefined || value === '') usage(`${label} is required`);
  const trimmed = value.trim();
  if (!/^[1-9][0-9]*$/.test(trimmed) || !Number.isSafeInteger(Number(trimmed))) usage(`${label} must be a positive integer user id, got "${value}"`);
  return Number(trimmed);
}

export function parseName(label: string, value: string | undefined, max = 200): string {
  const trimmed = value?.trim() ?? '';
  if (!trimmed) usage(`${label} is required and must not be blank`);
  if (trimmed.length > max) usage(`${label} must be at most ${max} characters`);
  return trimmed;
}

export function parseEmail(value: string | undefined): string {
  const trimmed = value?.trim() ?? '';
  if (!trimmed) usage('--email is required');
  if (!email.safeParse(trimmed).success) usage(`--email must be an email address, got "${value}"`);
  return trimmed;
}

export function parseList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export function parseScopes(value: string | undefined): Scope[] {
  const scopes = [...new Set(parseList(value))];
  if (scopes.length === 0) usage(`--scopes must name at least one scope, e.g. customers:read,jobs:write (known: ${allScopes.join(', ')})`);
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length) {
    usage(`--scopes: unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.map((s) => `"${s}"`).join(', ')} (known: ${allScopes.join(', ')})`);
  }
  return scopes as Scope[];
}

/** An ISO 8601 timestamp with a zone (2026-12-31T23:59:59Z, ...+02:00) or a date (midnight UTC of that day). */
export function parseTimestamp(label: string, value: string | undefined): Date {
  const trimmed = value?.trim() ?? '';
  let date: Date | null = null;
  if (isoDateTime.safeParse(trimmed).success) date = new Date(trimmed);
  else if (isoDate.safeParse(trimmed).success) date = new Date(`${trimmed}T00:00:00Z`);
  if (!date || Number.isNaN(date.getTime())) {
    usage(`${label} must be an ISO 8601 timestamp with a time zone, e.g. 2026-12-31T23:59:59Z, or a date such as 2026-12-31; got "${value}"`);
  }
  return date;
}

/** A version the server accepts (API_VERSIONS of the command's environment). */
export function parseApiVersion(value: string | undefined, versions: ApiVersions): string {
  const trimmed = value?.trim() ?? '';
  if (!versions.isSupported(trimmed)) usage(`--api-version must be one of ${versions.supported.join(', ')}; got "${value}"`);
  return trimmed;
}

export function parseOnOff(label: string, value: string | undefined): boolean {
  const normalized = value?.trim().toLowerCase();
  if (normalized === 'on') return true;
  if (normalized === 'off') return false;
  usage(`${label} must be on or off; got "${value}"`);
}

const moduleValues = accountModuleValues;

/** --module NAME=VALUE (repeatable): AddressRequired=Yes|No, System=on|off. Names and values are matched case-insensitively. */
export function parseModules(values: readonly string[]): Partial<AccountModules> {
  const modules: Partial<Record<keyof AccountModules, string>> = {};
  const names = Object.keys(moduleValues) as (keyof AccountModules)[];
  for (const raw of values) {
    const match = /^\s*([^=\s]+)\s*=\s*(\S+)\s*$/.exec(raw);
    if (!match) usage(`--module must be NAME=VALUE, e.g. AddressRequired=No or System=on; got "${raw}"`);
    const name = names.find((n) => n.toLowerCase() === match[1].toLowerCase());
    if (!name) usage(`--module: unknown module "${match[1]}" (known: ${names.join(', ')})`);
    const allowed: readonly string[] = moduleValues[name];
    const value = allowed.find((v) => v.toLowerCase() === match[2].toLowerCase());
    if (!value) usage(`--module ${name} must be ${allowed.join(' or ')}; got "${match[2]}"`);
    if (modules[name] !== undefined && modules[name] !== value) usage(`--module ${name} is given twice with different values`);
    modules[name] = value;
  }
  return modules as Partial<AccountModules>;
}

export type RelatedName = (typeof relatedNames)[number];

export function parseResource(value: string | undefined): RelatedName {
  const trimmed = value?.trim() ?? '';
  const found = relatedNames.find((name) => name.toLowerCase() === trimmed.toLowerCase());
  if (!found) usage(`--resource must be one of ${relatedNames.join(', ')}; got "${value ?? ''}"`);
  return found;
}

export function parseFieldType(value: string | undefined): (typeof customFieldTypes)[number] {
  const trimmed = value?.trim().toLowerCase() ?? '';
  const found = customFieldTypes.find((type) => type === trimmed);
  if (!found) usage(`--type must be one of ${customFieldTypes.join(', ')}; got "${value ?? ''}"`);
  return found;
}

export function parseSigningKeyId(value: string | undefined): string {
  const trimmed = value?.trim() ?? '';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(trimmed)) usage(`KID must be a cursor key id as printed by "fieldline cursor-key list"; got "${value ?? ''}"`);
  return trimmed;
}

export function parseRole(value: string | undefined): Role {
  const trimmed = value?.trim().toLowerCase() ?? '';
  const found = roles.find((role) => role === trimmed);
  if (!found) usage(`--role must be one of ${roles.join(', ')}; got "${value ?? ''}"`);
  return found;
}
