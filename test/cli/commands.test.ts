import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/kernel/api-keys.ts';
import { allScopes } from '../../src/resources/catalog.ts';
import { CURRENT_VERSION } from '../../src/kernel/versioning.ts';
import { startTestApp, useTestApp } from '../helpers/app.ts';
import { startReceiver } from '../helpers/webhook-receivers.ts';
import { cliOn, type CliRun } from '../helpers/cli.ts';
import { tokenPattern, uuidV7 } from '../helpers/ids.ts';

// Every `fieldline` command, run in-process (runCli) on the same database as a live app, and its effect
// checked through the REST API.

// The commands change the database behind the app's back: the app reads keys on every request.
const t = useTestApp({ env: { AUTH_CACHE_TTL_MS: '0' } });
let cli: ReturnType<typeof cliOn>;
beforeAll(() => {
  cli = cliOn(t.database);
});

/** Runs a command with --json and expects success: stdout is exactly one JSON object, stderr is empty. */
async function ok(...argv: string[]): Promise<any> {
  const run = await cli(...argv, '--json');
  expect(run.stderr, run.stdout).toBe('');
  expect(run.code, run.stdout).toBe(0);
  expect(run.stdout.endsWith('\n')).toBe(true);
  expect(run.json).toBeTypeOf('object');
  return run.json;
}

/** Runs a command with --json and expects a failure reported as one {"error":{"message"}} object. */
async function refused(...argv: string[]): Promise<CliRun> {
  const run = await cli(...argv, '--json');
  expect(run.code).not.toBe(0);
  expect(run.stderr).toBe('');
  expect(Object.keys(run.json ?? {})).toEqual(['error']);
  expect(Object.keys(run.json.error)).toEqual(['message']);
  expect(run.json.error.message).toBeTypeOf('string');
  return run;
}

async function newAccount(...extra: string[]) {
  return ok('account', 'create', '--name', `Acme ${Math.random().toString(36).slice(2, 8)}`, ...extra);
}

const me = (token: string) => t.client(token).get('/me');

describe('fieldline account create', () => {
  it('prints the account, its admin user and a key with every scope whose token works on /me', async () => {
    const out = await ok('account', 'create', '--name', 'Northwind Heating');
    expect(Object.keys(out).sort()).toEqual(['account', 'key', 'user']);
    expect(out.account).toMatchObject({ name: 'Northwind Heating', sandbox: false, active: true, api_access: true, modules: { AddressRequired: 'Yes', System: 'off' } });
    expect(out.account.id).toMatch(uuidV7);
    expect(out.user).toMatchObject({ role: 'admin', active: true });
    expect(Number.isInteger(out.user.id)).toBe(true);
    expect(out.key.id).toMatch(uuidV7);
    expect(out.key.token).toMatch(tokenPattern);
    expect(out.key.scopes).toEqual(allScopes);
    expect(out.key.expires_at).toBeNull();

    const res = await me(out.key.token);
    expect(res.status).toBe(200);
    expect(res.body.data.account).toMatchObject({ id: out.account.id, name: 'Northwind Heating', sandbox: false });
    expect(res.body.data.user.id).toBe(out.user.id);
    expect(res.body.data.key).toMatchObject({ id: out.key.id, scopes: allScopes });
    expect(res.body.data.api_version).toBe(CURRENT_VERSION);
    const customers = t.client(out.key.token);
    expect((await customers.post('/customers', { customer: { organization: 'First customer' } })).status).toBe(201);
    expect((await customers.get('/customers')).body.data).toHaveLength(1);
  });

  it('never prints the hash of the token it created', async () => {
    const run = await cli('account', 'create', '--name', 'Hash Check', '--json');
    expect(run.stdout).not.toContain(hashToken(run.json.key.token));
    const human = await cli('account', 'create', '--name', 'Hash Check 2');
    const token = /svc_\S+/.exec(human.stdout)![0];
    expect(human.stdout).not.toContain(hashToken(token));
  });

  it('creates a --no-api-access account whose keys answer 403 auth.plan_required', async () => {
    const out = await newAccount('--no-api-access');
    expect(out.account.api_access).toBe(false);
    const res = await me(out.key.token);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('auth.plan_required');
  });

  it('creates a --sandbox account that is exempt from auth.plan_required', async () => {
    const out = await newAccount('--sandbox', '--no-api-access');
    expect(out.account).toMatchObject({ sandbox: true, api_access: false });
    const res = await me(out.key.token);
    expect(res.status).toBe(200);
    expect(res.body.data.account.sandbox).toBe(true);
  });

  it('gives the account the default statuses', async () => {
    const out = await newAccount();
    const res = await t.client(out.key.token).get('/statuses?related_name=Customer');
    expect(res.body.data.map((s: any) => s.display_name)).toEqual(['Active', 'Inactive']);
  });

  it('refuses a blank or missing --name', async () => {
    expect((await refused('account', 'create', '--name', '  ')).json.error.message).toMatch(/--name is required/);
    expect((await refused('account', 'create')).json.error.message).toMatch(/--name/);
  });
});

describe('fieldline account update', () => {
  it('--deactivate --reason makes the keys answer 403 account.deactivated with the reason; --activate restores them', async () => {
    const out = await newAccount();
    const updated = await ok('account', 'update', out.account.id, '--deactivate', '--reason', 'Invoice 1042 unpaid');
    expect(updated.account).toMatchObject({ id: out.account.id, active: false, deactivation_reason: 'Invoice 1042 unpaid' });
    const res = await me(out.key.token);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('account.deactivated');
    expect(res.body.reason).toBe('Invoice 1042 unpaid');

    const again = await ok('account', 'update', out.account.id, '--activate');
    expect(again.account).toMatchObject({ active: true, deactivation_reason: null });
    expect((await me(out.key.token)).status).toBe(200);
  });

  it('--deactivate without a reason answers account.deactivated without a reason field', async () => {
    const out = await newAccount();
    await ok('account', 'update', out.account.id, '--deactivate');
    const res = await me(out.key.token);
    expect(res.body.code).toBe('account.deactivated');
    expect(res.body).not.toHaveProperty('reason');
  });

  it('--api-access off makes keys answer auth.plan_required, on restores them, and sandbox accounts stay exempt', async () => {
    const paying = await newAccount();
    const sandbox = await newAccount('--sandbox');
    expect((await ok('account', 'update', paying.account.id, '--api-access', 'off')).account.api_access).toBe(false);
    await ok('account', 'update', sandbox.account.id, '--api-access', 'off');
    const denied = await me(paying.key.token);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('auth.plan_required');
    expect((await me(sandbox.key.token)).status).toBe(200);
    await ok('account', 'update', paying.account.id, '--api-access', 'on');
    expect((await me(paying.key.token)).status).toBe(200);
  });

  it('sets modules with repeatable --module and keeps the ones not named', async () => {
    const out = await newAccount();
    const first = await ok('account', 'update', out.account.id, '--module', 'AddressRequired=No', '--module', 'System=on');
    expect(first.account.modules).toEqual({ AddressRequired: 'No', System: 'on' });
    const second = await ok('account', 'update', out.account.id, '--module', 'System=off');
    expect(second.account.modules).toEqual({ AddressRequired: 'No', System: 'off' });
    expect((await me(out.key.token)).body.data.account.modules).toEqual({ AddressRequired: 'No', System: 'off' });
  });

  it('refuses bad module settings, naming what is accepted', async () => {
    const out = await newAccount();
    expect((await refused('account', 'update', out.account.id, '--module', 'AddressRequired=Maybe')).json.error.message).toMatch(/AddressRequired must be Yes or No/);
    expect((await refused('account', 'update', out.account.id, '--module', 'System=yes')).json.error.message).toMatch(/System must be on or off/);
    expect((await refused('account', 'update', out.account.id, '--module', 'Billing=on')).json.error.message).toMatch(/unknown module "Billing"/);
    expect((await refused('account', 'update', out.account.id, '--module', 'System')).json.error.message).toMatch(/NAME=VALUE/);
    expect((await me(out.key.token)).body.data.account.modules).toEqual({ AddressRequired: 'Yes', System: 'off' });
  });

  it('refuses contradictory or empty updates and bad --api-access values', async () => {
    const out = await newAccount();
    expect((await refused('account', 'update', out.account.id, '--deactivate', '--activate')).json.error.message).toMatch(/cannot be combined/);
    expect((await refused('account', 'update', out.account.id, '--activate', '--reason', 'x')).json.error.message).toMatch(/--reason goes with --deactivate/);
    expect((await refused('account', 'update', out.account.id)).json.error.message).toMatch(/nothing to change/);
    expect((await refused('account', 'update', out.account.id, '--api-access', 'maybe')).json.error.message).toMatch(/--api-access must be on or off/);
  });

  it('refuses unknown and malformed account ids', async () => {
    const unknown = await refused('account', 'update', '01900000-0000-7000-8000-000000000000', '--activate');
    expect(unknown.code).toBe(1);
    expect(unknown.json.error.message).toMatch(/no account 01900000-0000-7000-8000-000000000000/);
    const malformed = await refused('account', 'update', 'acme', '--activate');
    expect(malformed.code).toBe(2);
    expect(malformed.json.error.message).toMatch(/account id must be a UUID/);
  });
});

describe('fieldline user', () => {
  it('user create prints {"user":{"id":...}} and the user gets working keys with its role', async () => {
    const acc = await newAccount();
    const out = await ok('user', 'create', '--account', acc.account.id, '--name', 'Tina Tech', '--email', 'tina@example.com', '--role', 'technician');
    expect(Object.keys(out)).toEqual(['user']);
    expect(out.user).toMatchObject({ name: 'Tina Tech', email: 'tina@example.com', role: 'technician', active: true, account_id: acc.account.id });
    expect(Number.isInteger(out.user.id)).toBe(true);
    const key = await ok('key', 'create', '--user', String(out.user.id));
    const res = await me(key.key.token);
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ id: out.user.id, role: 'technician' });
    expect(res.body.data.account.id).toBe(acc.account.id);
  });

  it('user create defaults to the office role', async () => {
    const acc = await newAccount();
    const out = await ok('user', 'create', '--account', acc.account.id, '--name', 'Olive', '--email', 'olive@example.com');
    expect(out.user.role).toBe('office');
  });

  it('user create refuses a bad role, a bad email, a duplicate email and an unknown account', async () => {
    const acc = await newAccount();
    const base = ['user', 'create', '--account', acc.account.id, '--name', 'X'];
    expect((await refused(...base, '--email', 'x@example.com', '--role', 'boss')).json.error.message).toMatch(/--role must be one of admin, office, technician/);
    expect((await refused(...base, '--email', 'not-an-email')).json.error.message).toMatch(/--email must be an email address/);
    await ok(...base, '--email', 'dup@example.com');
    expect((await refused(...base, '--email', 'dup@example.com')).json.error.message).toMatch(/already exists/);
    const unknown = ['user', 'create', '--account', '01900000-0000-7000-8000-000000000000', '--name', 'X', '--email', 'x@example.com'];
    expect((await refused(...unknown)).json.error.message).toMatch(/no account/);
  });

  it('user update --inactive makes its keys answer 403 account.inactive; --active restores them', async () => {
    const acc = await newAccount();
    const out = await ok('user', 'update', String(acc.user.id), '--inactive');
    expect(out.user).toMatchObject({ id: acc.user.id, active: false });
    const res = await me(acc.key.token);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('account.inactive');
    expect((await ok('user', 'update', String(acc.user.id), '--active')).user.active).toBe(true);
    expect((await me(acc.key.token)).status).toBe(200);
  });

  it('user update --role changes the role seen by the API', async () => {
    const acc = await newAccount();
    expect((await ok('user', 'update', String(acc.user.id), '--role', 'technician')).user.role).toBe('technician');
    expect((await me(acc.key.token)).body.data.user.role).toBe('technician');
  });

  it('user update refuses contradictory flags, no change, and unknown or malformed ids', async () => {
    const acc = await newAccount();
    expect((await refused('user', 'update', String(acc.user.id), '--active', '--inactive')).json.error.message).toMatch(/cannot be combined/);
    expect((await refused('user', 'update', String(acc.user.id))).json.error.message).toMatch(/nothing to change/);
    expect((await refused('user', 'update', '987654321', '--active')).json.error.message).toMatch(/no user 987654321/);
    expect((await refused('user', 'update', 'abc', '--active')).json.error.message).toMatch(/user id must be a positive integer/);
  });
});

describe('fieldline key', () => {
  it('key create prints {"key":{id, token, scopes, expires_at}} and the key carries exactly those scopes', async () => {
    const acc = await newAccount();
    const out = await ok('key', 'create', '--user', String(acc.user.id), '--scopes', 'customers:read,jobs:write');
    expect(Object.keys(out)).toEqual(['key']);
    expect(out.key).toMatchObject({ scopes: ['customers:read', 'jobs:write'], expires_at: null, api_version: CURRENT_VERSION });
    expect(out.key.id).toMatch(uuidV7);
    expect(out.key.token).toMatch(tokenPattern);
    const api2 = t.client(out.key.token);
    expect((await api2.get('/customers')).status).toBe(200);
    const denied = await api2.post('/customers', { customer: { organization: 'Nope' } });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'auth.scope_missing', required_scope: 'customers:write', granted_scopes: ['customers:read', 'jobs:write'] });
  });

  it('key create --expires-at in the future keeps the key working and prints the expiry', async () => {
    const acc = await newAccount();
    const out = await ok('key', 'create', '--user', String(acc.user.id), '--expires-at', '2099-01-01T00:00:00+01:00');
    expect(out.key.expires_at).toBe('2098-12-31T23:00:00.000Z');
    const res = await me(out.key.token);
    expect(res.status).toBe(200);
    expect(res.body.data.key.expires_at).toBe('2098-12-31T23:00:00.000Z');
  });

  it('key create --expires-at in the past makes a key that answers 401 auth.invalid_token', async () => {
    const acc = await newAccount();
    const out = await ok('key', 'create', '--user', String(acc.user.id), '--expires-at', '2020-01-01T00:00:00Z');
    expect(out.key.expires_at).toBe('2020-01-01T00:00:00.000Z');
    const res = await me(out.key.token);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth.invalid_token');
  });

  it('key create --api-version pins the version reported by /me', async () => {
    const acc = await newAccount();
    const out = await ok('key', 'create', '--user', String(acc.user.id), '--api-version', CURRENT_VERSION);
    expect((await me(out.key.token)).body.data.api_version).toBe(CURRENT_VERSION);
  });

  it('key create refuses unknown scopes, bad dates, unknown versions and unknown users', async () => {
    const acc = await newAccount();
    const user = String(acc.user.id);
    expect((await refused('key', 'create', '--user', user, '--scopes', 'customers:read,customers:delete')).json.error.message).toMatch(
      /unknown scope "customers:delete"/,
    );
    expect((await refused('key', 'create', '--user', user, '--scopes', ',')).json.error.message).toMatch(/at least one scope/);
    expect((await refused('key', 'create', '--user', user, '--expires-at', 'next tuesday')).json.error.message).toMatch(/--expires-at must be an ISO 8601/);
    expect((await refused('key', 'create', '--user', user, '--expires-at', '2026-13-45T00:00:00Z')).json.error.message).toMatch(/--expires-at/);
    expect((await refused('key', 'create', '--user', user, '--api-version', '2019-01-01')).json.error.message).toMatch(/--api-version must be one of/);
    expect((await refused('key', 'create', '--user', '987654321')).json.error.message).toMatch(/no user 987654321/);
    expect((await refused('key', 'create')).json.error.message).toMatch(/--user/);
  });

  it('key revoke makes the token answer 401 auth.token_revoked', async () => {
    const acc = await newAccount();
    const out = await ok('key', 'revoke', acc.key.id);
    expect(out.key.id).toBe(acc.key.id);
    expect(Number.isNaN(Date.parse(out.key.revoked_at))).toBe(false);
    expect(out.key).not.toHaveProperty('token');
    const res = await me(acc.key.token);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth.token_revoked');
    expect((await refused('key', 'revoke', '01900000-0000-7000-8000-000000000000')).json.error.message).toMatch(/no key/);
  });

  it('key rotate prints the new key in the create shape; the old token answers auth.token_revoked and the new one works', async () => {
    const acc = await newAccount();
    const scoped = await ok('key', 'create', '--user', String(acc.user.id), '--scopes', 'customers:write', '--expires-at', '2099-06-30T12:00:00Z');
    const out = await ok('key', 'rotate', scoped.key.id);
    expect(Object.keys(out)).toEqual(['key']);
    expect(out.key.id).not.toBe(scoped.key.id);
    expect(out.key.token).toMatch(tokenPattern);
    expect(out.key.token).not.toBe(scoped.key.token);
    expect(out.key).toMatchObject({ scopes: ['customers:write'], expires_at: '2099-06-30T12:00:00.000Z' });
    expect(out.key.api_version).toBe(scoped.key.api_version);
    const old = await me(scoped.key.token);
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('auth.token_revoked');
    const fresh = await me(out.key.token);
    expect(fresh.status).toBe(200);
    expect(fresh.body.data.key).toMatchObject({ id: out.key.id, scopes: ['customers:write'] });
    expect((await refused('key', 'rotate', scoped.key.id)).json.error.message).toMatch(/already revoked/);
  });

  it('key create stores the token only as its SHA-256 hex digest: no column holds the token or its UUID', async () => {
    const acc = await newAccount();
    const out = await ok('key', 'create', '--user', String(acc.user.id));
    const rows = await t.database.prisma.$queryRawUnsafe<Record<string, unknown>[]>('SELECT * FROM api_keys WHERE id = $1::uuid', out.key.id);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row.token_hash).toBe(createHash('sha256').update(out.key.token, 'utf8').digest('hex'));
    const uuidPart = out.key.token.slice('svc_'.length);
    for (const [column, value] of Object.entries(row)) {
      const text = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) ?? '';
      expect(text, column).not.toContain(uuidPart);
      expect(text.replace(/-/g, ''), column).not.toContain(uuidPart.replace(/-/g, ''));
    }
  });

  it('of concurrent rotations of one key exactly one succeeds; the others fail as for a revoked key, leaving one live successor', async () => {
    for (let round = 0; round < 3; round++) {
      const acc = await newAccount();
      const target = await ok('key', 'create', '--user', String(acc.user.id), '--scopes', 'jobs:read');
      const runs = await Promise.all([1, 2, 3].map(() => cli('key', 'rotate', target.key.id, '--json')));
      const winners = runs.filter((r) => r.code === 0);
      expect(winners, runs.map((r) => r.stdout).join('')).toHaveLength(1);
      for (const loser of runs.filter((r) => r.code !== 0)) {
        expect(loser.code).toBe(1);
        expect(loser.json.error.message).toBe(`key ${target.key.id} is already revoked`);
      }
      const successor = winners[0].json.key;
      const old = await t.database.prisma.apiKey.findUniqueOrThrow({ where: { id: target.key.id } });
      expect(old.revoked_at).not.toBeNull();
      expect(old.replaced_by_id).toBe(successor.id);
      // The user's keys: the account's own, the rotated one and one successor; a losing rotation left no key behind.
      const keys = await t.database.prisma.apiKey.findMany({ where: { user_id: BigInt(acc.user.id) } });
      expect(keys.map((k) => k.id).sort()).toEqual([acc.key.id, target.key.id, successor.id].sort());
      expect(keys.filter((k) => k.revoked_at === null).map((k) => k.id).sort()).toEqual([acc.key.id, successor.id].sort());
      expect((await me(successor.token)).status).toBe(200);
    }
  });
});

describe('fieldline status, label and custom-field', () => {
  it('status add and remove change GET /statuses?related_name=Customer', async () => {
    const acc = await newAccount();
    const lookups = t.client(acc.key.token);
    const added = await ok('status', 'add', '--account', acc.account.id, '--resource', 'Customer', '--name', 'On Hold');
    expect(added.status).toMatchObject({ related_name: 'Customer', display_name: 'On Hold' });
    expect(added.status.id).toMatch(uuidV7);
    const names = async () => (await lookups.get('/statuses?related_name=Customer')).body.data.map((s: any) => s.display_name);
    expect(await names()).toEqual(['Active', 'Inactive', 'On Hold']);
    expect((await refused('status', 'add', '--account', acc.account.id, '--resource', 'Customer', '--name', 'On Hold')).json.error.message).toMatch(
      /already exists/,
    );
    const removed = await ok('status', 'remove', '--account', acc.account.id, '--resource', 'Customer', '--name', 'On Hold');
    expect(removed.status).toMatchObject({ id: added.status.id, removed: true });
    expect(await names()).toEqual(['Active', 'Inactive']);
    expect((await refused('status', 'remove', '--account', acc.account.id, '--resource', 'Customer', '--name', 'On Hold')).json.error.message).toMatch(
      /no live status/,
    );
  });

  it('label add and remove change GET /labels?related_name=Customer, and customers accept the label', async () => {
    const acc = await newAccount();
    const lookups = t.client(acc.key.token);
    const added = await ok('label', 'add', '--account', acc.account.id, '--resource', 'Customer', '--name', 'VIP');
    expect(added.label).toMatchObject({ related_name: 'Customer', display_name: 'VIP' });
    expect((await lookups.get('/labels?related_name=Customer')).body.data.map((l: any) => l.display_name)).toEqual(['VIP']);
    expect((await lookups.post('/customers', { customer: { organization: 'Labelled', labels: ['VIP'] } })).status).toBe(201);
    await ok('label', 'remove', '--account', acc.account.id, '--resource', 'Customer', '--name', 'VIP');
    expect((await lookups.get('/labels?related_name=Customer')).body.data).toEqual([]);
  });

  it('custom-field add prints {"custom_field_definition":{"id":...}} and the definition shows in GET /custom_field_definitions', async () => {
    const acc = await newAccount();
    const out = await ok(
      'custom-field', 'add', '--account', acc.account.id, '--resource', 'Customer', '--name', 'Contract tier', '--type', 'select', '--options', 'Gold, Silver', '--required',
    );
    expect(Object.keys(out)).toEqual(['custom_field_definition']);
    expect(out.custom_field_definition).toMatchObject({ related_name: 'Customer', name: 'Contract tier', field_type: 'select', options: ['Gold', 'Silver'], required: true });
    const text = await ok('custom-field', 'add', '--account', acc.account.id, '--resource', 'Customer', '--name', 'Gate code', '--type', 'text');
    const listed = (await t.client(acc.key.token).get('/custom_field_definitions?related_name=Customer')).body.data;
    expect(listed).toEqual([
      expect.objectContaining({ id: out.custom_field_definition.id, name: 'Contract tier', field_type: 'select', options: ['Gold', 'Silver'], required: true }),
      expect.objectContaining({ id: text.custom_field_definition.id, name: 'Gate code', field_type: 'text', options: [], required: false }),
    ]);
    const removed = await ok('custom-field', 'remove', '--account', acc.account.id, '--resource', 'Customer', '--name', 'Gate code');
    expect(removed.custom_field_definition).toMatchObject({ id: text.custom_field_definition.id, removed: true });
    const after = (await t.client(acc.key.token).get('/custom_field_definitions?related_name=Customer')).body.data;
    expect(after.map((d: any) => d.name)).toEqual(['Contract tier']);
  });

  it('custom-field add --type attachment takes the allowed content types in --options and a size limit in --max-size', async () => {
    const acc = await newAccount();
    const out = await ok('custom-field', 'add', '--account', acc.account.id, '--resource', 'Job', '--name', 'Sheet', '--type', 'attachment', '--options', 'image/*,application/pdf', '--max-size', '1048576');
    expect(out.custom_field_definition).toMatchObject({ field_type: 'attachment', options: ['image/*', 'application/pdf'], max_size_bytes: 1048576 });
    const listed = (await t.client(acc.key.token).get('/custom_field_definitions?related_name=Job')).body.data;
    expect(listed).toEqual([expect.objectContaining({ name: 'Sheet', field_type: 'attachment', options: ['image/*', 'application/pdf'], max_size_bytes: 1048576 })]);
  });

  it('refuses unknown resources, types, missing options and unknown accounts', async () => {
    const acc = await newAccount();
    const base = ['--account', acc.account.id, '--name', 'X'];
    expect((await refused('status', 'add', ...base, '--resource', 'Spaceship')).json.error.message).toMatch(/--resource must be one of Customer/);
    expect((await refused('label', 'add', ...base, '--resource', 'Spaceship')).json.error.message).toMatch(/--resource must be one of/);
    expect((await refused('custom-field', 'add', ...base, '--resource', 'Customer', '--type', 'color')).json.error.message).toMatch(
      /--type must be one of text, number, date, checkbox, select, multiselect, attachment/,
    );
    expect((await refused('custom-field', 'add', ...base, '--resource', 'Customer', '--type', 'multiselect')).json.error.message).toMatch(
      /--options is required for multiselect/,
    );
    expect((await refused('custom-field', 'add', ...base, '--resource', 'Customer', '--type', 'text', '--options', 'a')).json.error.message).toMatch(
      /--options goes with --type select, multiselect or attachment/,
    );
    expect((await refused('custom-field', 'add', ...base, '--resource', 'Customer', '--type', 'text', '--max-size', '10')).json.error.message).toMatch(/--max-size goes with --type attachment/);
    expect((await refused('custom-field', 'add', ...base, '--resource', 'Customer', '--type', 'attachment', '--max-size', 'big')).json.error.message).toMatch(/--max-size must be a whole number of bytes/);
    expect((await refused('custom-field', 'add', ...base, '--resource', 'Customer', '--type', 'attachment', '--options', 'png')).json.error.message).toMatch(/content types \(image\/png, image\/\*\); got "png"/);
    const unknown = ['--account', '01900000-0000-7000-8000-000000000000', '--resource', 'Customer', '--name', 'X'];
    expect((await refused('status', 'add', ...unknown)).json.error.message).toMatch(/no account/);
    expect((await refused('custom-field', 'add', ...unknown, '--type', 'text')).json.error.message).toMatch(/no account/);
  });
});

describe('fieldline list commands', () => {
  it('account list: every account with its users and live keys, never a token', async () => {
    const out = await newAccount();
    const listed = (await ok('account', 'list')).accounts;
    const mine = listed.find((a: any) => a.id === out.account.id);
    expect(mine).toEqual({ id: out.account.id, name: out.account.name, sandbox: false, active: true, api_access: true, users: 1, live_keys: 1, created_at: expect.any(String) });
    const human = await cli('account', 'list');
    expect(human.stdout).toContain(`${out.account.id}  ${out.account.name}: active yes, API access yes, 1 users, 1 live keys`);
    expect(human.stdout).not.toContain(out.key.token);
  });

  it('user list --account: the users in the order they were made', async () => {
    const out = await newAccount();
    const tech = await ok('user', 'create', '--account', out.account.id, '--name', 'Tess Tech', '--email', 'tess@example.com', '--role', 'technician');
    await ok('user', 'update', String(tech.user.id), '--inactive');
    expect((await ok('user', 'list', '--account', out.account.id)).users).toEqual([
      { id: out.user.id, name: 'Admin', email: expect.any(String), role: 'admin', active: true, created_at: expect.any(String) },
      { id: tech.user.id, name: 'Tess Tech', email: 'tess@example.com', role: 'technician', active: false, created_at: expect.any(String) },
    ]);
    expect((await refused('user', 'list', '--account', '01900000-0000-7000-8000-000000000000')).json.error.message).toBe('no account 01900000-0000-7000-8000-000000000000');
  });

  it('key list --account or --user: newest first with their state (live, expired, revoked and replaced), never a token or its hash', async () => {
    const out = await newAccount();
    const expired = await ok('key', 'create', '--user', String(out.user.id), '--scopes', 'customers:read', '--expires-at', '2020-01-01T00:00:00Z');
    const rotated = await ok('key', 'rotate', out.key.id);
    const keys = (await ok('key', 'list', '--account', out.account.id)).keys;
    expect(keys.map((k: any) => [k.id, k.state, k.replaced_by_id])).toEqual([
      [rotated.key.id, 'live', null],
      [expired.key.id, 'expired', null],
      [out.key.id, 'revoked', rotated.key.id],
    ]);
    expect(keys[1]).toMatchObject({ user_id: out.user.id, scopes: ['customers:read'], expires_at: '2020-01-01T00:00:00.000Z', revoked_at: null });
    expect((await ok('key', 'list', '--user', String(out.user.id))).keys).toEqual(keys);
    const text = JSON.stringify(keys) + (await cli('key', 'list', '--account', out.account.id)).stdout;
    for (const token of [out.key.token, expired.key.token, rotated.key.token]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(hashToken(token));
    }
    expect((await refused('key', 'list')).json.error.message).toBe('pass one of --account ID or --user ID');
    expect((await refused('key', 'list', '--account', out.account.id, '--user', '1')).code).toBe(2);
  });

  it('webhook list --account: the endpoints with their delivery state, never a secret', async () => {
    const out = await newAccount();
    expect((await ok('webhook', 'list', '--account', out.account.id)).webhook_endpoints).toEqual([]);
    // A development app (loopback allowed) and a receiver that answers the verification challenge.
    const dev = await startTestApp({ database: t.database, env: { NODE_ENV: 'development' } });
    const echo = await startReceiver({ kind: 'echo' });
    const created = await dev.client(out.key.token).post('/webhooks/endpoints', { endpoint: { url: echo.url, topics: ['customer.created'] } });
    await dev.close();
    await echo.close();
    expect(created.status, created.text).toBe(201);
    const run = await cli('webhook', 'list', '--account', out.account.id, '--json');
    expect(run.json.webhook_endpoints).toEqual([
      {
        id: created.body.data.id,
        url: echo.url,
        status: created.body.data.status,
        topics: ['customer.created'],
        consecutive_failures: 0,
        paused_until: null,
        last_delivery_at: null,
        last_delivery_status: null,
        created_at: expect.any(String),
      },
    ]);
    if (created.body.data.secret) expect(run.stdout).not.toContain(created.body.data.secret);
  });
});

describe('fieldline cursor-key', () => {
  async function firstPageCursor(token: string): Promise<string> {
    const res = await t.client(token).get('/customers?limit=1');
    expect(res.body.has_more).toBe(true);
    return new URL(/<([^>]+)>/.exec(res.headers.get('link')!)![1], 'http://localhost').searchParams.get('cursor')!;
  }

  it('rotate adds a key while older cursors keep working; retire KID makes its cursors answer cursor.invalid', async () => {
    const acc = await newAccount();
    const customers = t.client(acc.key.token);
    for (const organization of ['Cursor A', 'Cursor B', 'Cursor C']) await customers.post('/customers', { customer: { organization } });
    const cursor = await firstPageCursor(acc.key.token);
    const kid = JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString()).k as string;

    const rotated = await ok('cursor-key', 'rotate');
    expect(rotated.cursor_key.id).not.toBe(kid);
    expect(rotated.retired).toEqual([]);
    t.app.domain.signingKeys.invalidate(); // the server rereads keys every 5 s; skip the wait
    expect((await customers.get(`/customers?limit=1&cursor=${cursor}`)).status).toBe(200);
    const listed = await ok('cursor-key', 'list');
    expect(listed.cursor_keys.map((k: any) => k.id)).toEqual(expect.arrayContaining([kid, rotated.cursor_key.id]));
    expect(JSON.stringify(listed)).not.toMatch(/secret/);

    const retired = await ok('cursor-key', 'retire', kid);
    expect(retired.cursor_key.id).toBe(kid);
    expect(retired.cursor_key.retired_at).toBeTypeOf('string');
    t.app.domain.signingKeys.invalidate();
    const res = await customers.get(`/customers?limit=1&cursor=${cursor}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('cursor.invalid');
    expect((await refused('cursor-key', 'retire', kid)).json.error.message).toMatch(/already retired/);
    expect((await refused('cursor-key', 'retire', 'knope')).json.error.message).toMatch(/no cursor key knope/);
  });

  it('rotate --retire-previous retires every live key at once', async () => {
    const acc = await newAccount();
    const customers = t.client(acc.key.token);
    for (const organization of ['Retire A', 'Retire B']) await customers.post('/customers', { customer: { organization } });
    t.app.domain.signingKeys.invalidate();
    const cursor = await firstPageCursor(acc.key.token);
    const out = await ok('cursor-key', 'rotate', '--retire-previous');
    expect(out.retired.length).toBeGreaterThan(0);
    t.app.domain.signingKeys.invalidate();
    const res = await customers.get(`/customers?limit=1&cursor=${cursor}`);
    expect(res.body.code).toBe('cursor.invalid');
    const next = await firstPageCursor(acc.key.token);
    expect(JSON.parse(Buffer.from(next.split('.')[0], 'base64url').toString()).k).toBe(out.cursor_key.id);
  });
});

describe('fieldline output', () => {
  it('reports unknown commands and options as one JSON error object with exit code 2', async () => {
    for (const argv of [['frobnicate'], ['account', 'delete', 'x'], ['account', 'create', '--name', 'X', '--colour', 'red'], ['account']]) {
      const run = await refused(...argv);
      expect(run.code).toBe(2);
    }
  });

  it('without --json prints a readable summary, and errors only on stderr', async () => {
    const run = await cli('account', 'create', '--name', 'Readable Co');
    expect(run.code).toBe(0);
    expect(run.json).toBeNull();
    expect(run.stdout).toMatch(/^Created account "Readable Co" \([0-9a-f-]{36}\)/);
    expect(run.stdout).toMatch(/token: +svc_/);
    const failed = await cli('key', 'create', '--user', '1', '--scopes', 'nope');
    expect(failed.code).toBe(2);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/^fieldline: --scopes: unknown scope "nope"/);
  });

  it('--json is accepted anywhere on the line', async () => {
    const run = await cli('--json', 'account', 'create', '--name', 'Json First');
    expect(run.code).toBe(0);
    expect(run.json.account.name).toBe('Json First');
  });
});
