import type { PrismaClient } from '../../generated/prisma/client.ts';

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];
import { hashToken, newToken } from '../../kernel/api-keys.ts';
import { defaultModules, type IdentityChange } from '../../kernel/auth.ts';
import type { AccountModules } from '../../kernel/context.ts';
import { newId } from '../../kernel/ids.ts';
import { customFieldTypes, type CustomFieldType } from '../../kernel/lookups.ts';

/** The largest size limit an attachment field may set: 1 GiB (the default is 25 MB). */
const MAX_ATTACHMENT_BYTES = 1024 * 1024 * 1024;
import { roles, type Role } from '../../kernel/permissions.ts';
import { ApiVersions, CURRENT_VERSION, defaultApiVersions } from '../../kernel/versioning.ts';
import { allScopes, defaultStatuses, isScope, relatedNames } from '../catalog.ts';

// Tenant administration (the `fieldline` command and the first-start bootstrap): accounts, users, API keys
// and lookup values. It works outside any request, so it writes account_id explicitly.

export class AdminError extends Error {}

function fail(message: string): never {
  throw new AdminError(message);
}

export interface CreatedKey {
  id: string;
  token: string;
  scopes: string[];
  expires_at: string | null;
  api_version: string;
}

export class AdminService {
  constructor(
    private readonly db: PrismaClient,
    /** The versions a key may be pinned to (config API_VERSIONS). */
    private readonly versions: ApiVersions = defaultApiVersions,
    /** Told of each change that may refuse or reshape a key (the authenticator's cache forgets it). */
    private readonly changed: (change: IdentityChange) => void = () => {},
  ) {}

  /** The account, its default statuses, an admin user and a key with every scope: all or nothing. */
  async createAccount(input: { name: string; sandbox?: boolean; apiAccess?: boolean }) {
    const name = input.name?.trim();
    if (!name) fail('--name is required');
    const accountId = newId();
    const now = new Date();
    const account = { id: accountId, name, sandbox: input.sandbox ?? false, active: true, api_access: input.apiAccess ?? true, modules: { ...defaultModules } };
    return this.db.$transaction(async (tx) => {
      await tx.account.create({ data: { id: accountId, name, sandbox: account.sandbox, api_access: account.api_access, modules: account.modules } });
      const statuses = Object.entries(defaultStatuses).flatMap(([related_name, names]) =>
        names.map((display_name, position) => ({ id: newId(), account_id: accountId, related_name, display_name, position, created_at: now, updated_at: now })),
      );
      await tx.status.createMany({ data: statuses });
      const user = await this.insertUser(tx, { accountId, name: 'Admin', email: `admin+${accountId.slice(-12)}@fieldline.invalid`, role: 'admin' });
      const key = await this.insertKey(tx, { userId: user.id, scopes: allScopes });
      return { account, user, key };
    });
  }

  async updateAccount(
    id: string,
    input: { active?: boolean; reason?: string | null; apiAccess?: boolean; modules?: Partial<AccountModules>; currency?: string; timeZone?: string; paymentTermsDays?: number },
  ) {
    const account = await this.db.account.findUnique({ where: { id } });
    if (!account) fail(`no account ${id}`);
    if (input.currency !== undefined && !isCurrencyCode(input.currency)) fail(`currency ${input.currency}: an ISO 4217 code such as USD`);
    if (input.timeZone !== undefined && !isTimeZone(input.timeZone)) fail(`time zone ${input.timeZone}: an IANA time zone such as America/Chicago`);
    if (input.paymentTermsDays !== undefined && !(Number.isInteger(input.paymentTermsDays) && input.paymentTermsDays >= 0 && input.paymentTermsDays <= 3650)) {
      fail(`payment terms ${input.paymentTermsDays}: whole days from 0 to 3650`);
    }
    const modules = { ...defaultModules, ...(account.modules as object), ...(input.modules ?? {}) };
    const updated = await this.db.account.update({
      where: { id },
      data: {
        ...(input.active !== undefined ? { active: input.active, deactivation_reason: input.active ? null : (input.reason ?? null) } : {}),
        ...(input.apiAccess !== undefined ? { api_access: input.apiAccess } : {}),
        ...(input.currency !== undefined ? { currency: input.currency } : {}),
        ...(input.timeZone !== undefined ? { time_zone: input.timeZone } : {}),
        ...(input.paymentTermsDays !== undefined ? { payment_terms_days: input.paymentTermsDays } : {}),
        modules,
        updated_at: new Date(),
      },
    });
    this.changed({ accountId: id });
    return {
      id: updated.id,
      name: updated.name,
      sandbox: updated.sandbox,
      active: updated.active,
      deactivation_reason: updated.deactivation_reason,
      api_access: updated.api_access,
      modules,
      currency: updated.currency,
      time_zone: updated.time_zone,
      payment_terms_days: updated.payment_terms_days,
    };
  }

  createUser(input: { accountId: string; name: string; email: string; role?: Role }) {
    return this.insertUser(this.db, input);
  }

  private async insertUser(db: Tx | PrismaClient, input: { accountId: string; name: string; email: string; role?: Role }) {
    if (!input.name?.trim()) fail('--name is required');
    if (!/^[^\s@]+@[^\s@]+$/.test(input.email ?? '')) fail('--email must be an email address');
    const role = input.role ?? 'office';
    if (!roles.includes(role)) fail(`--role must be one of ${roles.join(', ')}`);
    const account = await db.account.findUnique({ where: { id: input.accountId } });
    if (!account) fail(`no account ${input.accountId}`);
    const clash = await db.user.findFirst({ where: { account_id: input.accountId, email: input.email } });
    if (clash) fail(`a user with email ${input.email} already exists in this account`);
    const user = await db.user.create({ data: { account_id: input.accountId, name: input.name.trim(), email: input.email, role } });
    return { id: Number(user.id), name: user.name, email: user.email, role: user.role, active: user.active };
  }

  async updateUser(id: number, input: { active?: boolean; role?: Role }) {
    if (input.role && !roles.includes(input.role)) fail(`--role must be one of ${roles.join(', ')}`);
    const user = await this.db.user.findUnique({ where: { id: BigInt(id) } });
    if (!user) fail(`no user ${id}`);
    const updated = await this.db.user.update({
      where: { id: BigInt(id) },
      data: { ...(input.active !== undefined ? { active: input.active } : {}), ...(input.role ? { role: input.role } : {}), updated_at: new Date() },
    });
    this.changed({ userId: id });
    return { id: Number(updated.id), name: updated.name, email: updated.email, role: updated.role, active: updated.active };
  }

  createKey(input: { userId: number; scopes?: readonly string[]; expiresAt?: Date | null; apiVersion?: string }): Promise<CreatedKey> {
    return this.insertKey(this.db, input);
  }

  private async insertKey(
    db: Tx | PrismaClient,
    input: { userId: number; scopes?: readonly string[]; expiresAt?: Date | null; apiVersion?: string },
  ): Promise<CreatedKey> {
    const scopes = [...new Set(input.scopes ?? allScopes)];
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length) fail(`unknown scopes: ${unknown.join(', ')} (known: ${allScopes.join(', ')})`);
    const apiVersion = input.apiVersion ?? CURRENT_VERSION;
    if (!this.versions.isSupported(apiVersion)) fail(`--api-version must be one of ${this.versions.supported.join(', ')}`);
    if (input.expiresAt && Number.isNaN(input.expiresAt.getTime())) fail('--expires-at must be an ISO 8601 timestamp');
    const user = await db.user.findUnique({ where: { id: BigInt(input.userId) } });
    if (!user) fail(`no user ${input.userId}`);
    const token = newToken();
    const key = await db.apiKey.create({
      data: {
        id: newId(),
        account_id: user.account_id,
        user_id: user.id,
        token_hash: hashToken(token),
        scopes,
        api_version: apiVersion,
        expires_at: input.expiresAt ?? null,
      },
    });
    return { id: key.id, token, scopes, expires_at: key.expires_at?.toISOString() ?? null, api_version: apiVersion };
  }

  async revokeKey(id: string) {
    const key = await this.db.apiKey.findUnique({ where: { id } });
    if (!key) fail(`no key ${id}`);
    const updated = await this.db.apiKey.update({ where: { id }, data: { revoked_at: key.revoked_at ?? new Date() } });
    this.changed({ keyId: id });
    return { id: updated.id, revoked_at: updated.revoked_at!.toISOString() };
  }

  /** A new key with the same user, scopes, expiry and version; the old one is revoked in the same transaction. */
  async rotateKey(id: string): Promise<CreatedKey> {
    const old = await this.db.apiKey.findUnique({ where: { id } });
    if (!old) fail(`no key ${id}`);
    const revoked = () => fail(`key ${id} is already revoked`);
    if (old.revoked_at) revoked();
    const token = newToken();
    const newKeyId = newId();
    await this.db.$transaction(async (tx) => {
      await tx.apiKey.create({
        data: {
          id: newKeyId,
          account_id: old.account_id,
          user_id: old.user_id,
          token_hash: hashToken(token),
          scopes: old.scopes,
          api_version: old.api_version,
          expires_at: old.expires_at,
        },
      });
      // Revoke the old key only if it is still live, in the transaction that created its successor: of two
      // concurrent rotations one revokes it; the other's update waits for the row lock, then matches nothing,
      // and its successor is rolled back. A rotation never leaves two live keys.
      const { count } = await tx.apiKey.updateMany({ where: { id, revoked_at: null }, data: { revoked_at: new Date(), replaced_by_id: newKeyId } });
      if (count === 0) revoked();
    });
    this.changed({ keyId: id });
    return { id: newKeyId, token, scopes: old.scopes, expires_at: old.expires_at?.toISOString() ?? null, api_version: old.api_version };
  }

  /** Every account, oldest first, with how many users and live keys it has. */
  async listAccounts() {
    const accounts = await this.db.account.findMany({ orderBy: [{ created_at: 'asc' }, { id: 'asc' }], include: { _count: { select: { users: true } } } });
    const live = await this.db.apiKey.groupBy({ by: ['account_id'], where: { revoked_at: null, OR: [{ expires_at: null }, { expires_at: { gt: new Date() } }] }, _count: { _all: true } });
    const keys = new Map(live.map((row) => [row.account_id, row._count._all]));
    return accounts.map((a) => ({
      id: a.id,
      name: a.name,
      sandbox: a.sandbox,
      active: a.active,
      api_access: a.api_access,
      users: a._count.users,
      live_keys: keys.get(a.id) ?? 0,
      created_at: a.created_at.toISOString(),
    }));
  }

  /** The users of an account, in the order they were made. */
  async listUsers(accountId: string) {
    await this.db.account.findUnique({ where: { id: accountId } }).then((a) => a ?? fail(`no account ${accountId}`));
    const users = await this.db.user.findMany({ where: { account_id: accountId }, orderBy: { id: 'asc' } });
    return users.map((u) => ({ id: Number(u.id), name: u.name, email: u.email, role: u.role, active: u.active, created_at: u.created_at.toISOString() }));
  }

  /**
   * The keys of an account, or of one user, newest first: never a token or its hash. `state` is live, expired or
   * revoked (a rotated key is revoked and names its successor).
   */
  async listKeys(filter: { accountId: string } | { userId: number }) {
    if ('accountId' in filter) await this.db.account.findUnique({ where: { id: filter.accountId } }).then((a) => a ?? fail(`no account ${filter.accountId}`));
    else await this.db.user.findUnique({ where: { id: BigInt(filter.userId) } }).then((u) => u ?? fail(`no user ${filter.userId}`));
    const keys = await this.db.apiKey.findMany({
      where: 'accountId' in filter ? { account_id: filter.accountId } : { user_id: BigInt(filter.userId) },
      orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    });
    const now = Date.now();
    return keys.map((k) => ({
      id: k.id,
      user_id: Number(k.user_id),
      state: k.revoked_at ? 'revoked' : k.expires_at && k.expires_at.getTime() <= now ? 'expired' : 'live',
      scopes: k.scopes,
      api_version: k.api_version,
      created_at: k.created_at.toISOString(),
      expires_at: k.expires_at?.toISOString() ?? null,
      revoked_at: k.revoked_at?.toISOString() ?? null,
      replaced_by_id: k.replaced_by_id,
    }));
  }

  /** The webhook endpoints of an account, oldest first, with their delivery state: never a secret. */
  async listWebhookEndpoints(accountId: string) {
    await this.db.account.findUnique({ where: { id: accountId } }).then((a) => a ?? fail(`no account ${accountId}`));
    const endpoints = await this.db.webhookEndpoint.findMany({ where: { account_id: accountId }, orderBy: [{ created_at: 'asc' }, { id: 'asc' }] });
    return endpoints.map((e) => ({
      id: e.id,
      url: e.url,
      status: e.status,
      topics: e.topics,
      consecutive_failures: e.consecutive_failures,
      paused_until: e.paused_until?.toISOString() ?? null,
      last_delivery_at: e.last_delivery_at?.toISOString() ?? null,
      last_delivery_status: e.last_delivery_status,
      created_at: e.created_at.toISOString(),
    }));
  }

  private checkLookupTarget(accountId: string, relatedName: string, name: string) {
    if (!(relatedNames as readonly string[]).includes(relatedName)) fail(`--resource must be one of ${relatedNames.join(', ')}`);
    if (!name?.trim()) fail('--name is required');
    return this.db.account.findUnique({ where: { id: accountId } }).then((a) => a ?? fail(`no account ${accountId}`));
  }

  async addLookup(kind: 'status' | 'label', input: { accountId: string; relatedName: string; name: string }) {
    await this.checkLookupTarget(input.accountId, input.relatedName, input.name);
    const delegate = kind === 'status' ? this.db.status : this.db.label;
    const where = { account_id: input.accountId, related_name: input.relatedName, display_name: input.name, deleted_at: null };
    if (await (delegate as typeof this.db.status).findFirst({ where })) fail(`${kind} "${input.name}" already exists for ${input.relatedName}`);
    const position = await (delegate as typeof this.db.status).count({ where: { account_id: input.accountId, related_name: input.relatedName, deleted_at: null } });
    const row = await (delegate as typeof this.db.status).create({
      data: { id: newId(), account_id: input.accountId, related_name: input.relatedName, display_name: input.name, position },
    });
    return { id: row.id, related_name: row.related_name, display_name: row.display_name, position: row.position };
  }

  async removeLookup(kind: 'status' | 'label', input: { accountId: string; relatedName: string; name: string }) {
    await this.checkLookupTarget(input.accountId, input.relatedName, input.name);
    const delegate = (kind === 'status' ? this.db.status : this.db.label) as typeof this.db.status;
    const row = await delegate.findFirst({ where: { account_id: input.accountId, related_name: input.relatedName, display_name: input.name, deleted_at: null } });
    if (!row) fail(`no live ${kind} "${input.name}" for ${input.relatedName}`);
    await delegate.update({ where: { id: row.id }, data: { deleted_at: new Date(), updated_at: new Date() } });
    return { id: row.id, related_name: row.related_name, display_name: row.display_name, removed: true };
  }

  async addCustomField(input: { accountId: string; relatedName: string; name: string; type: string; options?: string[]; required?: boolean; maxSizeBytes?: number }) {
    await this.checkLookupTarget(input.accountId, input.relatedName, input.name);
    if (!(customFieldTypes as readonly string[]).includes(input.type)) fail(`--type must be one of ${customFieldTypes.join(', ')}`);
    const options = (input.options ?? []).map((o) => o.trim()).filter(Boolean);
    if ((input.type === 'select' || input.type === 'multiselect') && options.length === 0) fail(`--options is required for ${input.type} fields`);
    // An attachment field's options are the content types it accepts (type/subtype or type/*); it may set a size limit.
    if (input.type === 'attachment') {
      for (const option of options) if (!/^[a-z0-9.+-]+\/([a-z0-9.+-]+|\*)$/i.test(option)) fail(`--options of an attachment field are content types (image/png, image/*); got "${option}"`);
    }
    if (input.maxSizeBytes !== undefined) {
      if (input.type !== 'attachment') fail('--max-size goes with --type attachment');
      if (!Number.isInteger(input.maxSizeBytes) || input.maxSizeBytes < 1 || input.maxSizeBytes > MAX_ATTACHMENT_BYTES) fail(`--max-size must be a whole number of bytes from 1 to ${MAX_ATTACHMENT_BYTES}`);
    }
    const where = { account_id: input.accountId, related_name: input.relatedName, name: input.name, deleted_at: null };
    if (await this.db.customFieldDefinition.findFirst({ where })) fail(`custom field "${input.name}" already exists for ${input.relatedName}`);
    const position = await this.db.customFieldDefinition.count({ where: { account_id: input.accountId, related_name: input.relatedName, deleted_at: null } });
    const row = await this.db.customFieldDefinition.create({
      data: {
        id: newId(),
        account_id: input.accountId,
        related_name: input.relatedName,
        name: input.name.trim(),
        field_type: input.type as CustomFieldType,
        options,
        required: input.required ?? false,
        max_size_bytes: input.type === 'attachment' ? (input.maxSizeBytes ?? null) : null,
        position,
      },
    });
    return { id: row.id, related_name: row.related_name, name: row.name, field_type: row.field_type, options: row.options, required: row.required, max_size_bytes: row.max_size_bytes };
  }

  /** Retires a custom field definition: it leaves the lookup and can no longer be written or filtered. */
  async removeCustomField(input: { accountId: string; relatedName: string; name: string }) {
    await this.checkLookupTarget(input.accountId, input.relatedName, input.name);
    const row = await this.db.customFieldDefinition.findFirst({
      where: { account_id: input.accountId, related_name: input.relatedName, name: input.name, deleted_at: null },
    });
    if (!row) fail(`no live custom field "${input.name}" for ${input.relatedName}`);
    await this.db.customFieldDefinition.update({ where: { id: row.id }, data: { deleted_at: new Date(), updated_at: new Date() } });
    return { id: row.id, related_name: row.related_name, name: row.name, removed: true };
  }
}

/** An ISO 4217 currency code the runtime knows (USD, EUR ...). */
export function isCurrencyCode(value: string): boolean {
  return /^[A-Z]{3}$/.test(value) && Intl.supportedValuesOf('currency').includes(value);
}

/** An IANA time zone the runtime knows (UTC, America/Chicago ...). */
export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return value.length <= 64;
  } catch {
    return false;
  }
}
