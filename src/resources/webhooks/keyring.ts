import { randomBytes } from 'node:crypto';
import type { TenantClient, TenantTx } from '../../kernel/tenancy.ts';
import type { WebhookSettings } from '../../kernel/settings.ts';
import type { SecretKeyring } from './secrets.ts';

// The keys that encrypt webhook signing secrets (secrets.ts): the operator's WEBHOOK_SECRETS_KEY ("env") when
// set, and the key the server keeps in its database ("db", made by whichever process asks first).

const DB_KEY = 'webhook-secrets';

async function readOrMake(db: TenantClient | TenantTx): Promise<Buffer> {
  await db.serverKey.createMany({ data: [{ name: DB_KEY, key: randomBytes(32).toString('base64') }], skipDuplicates: true });
  const row = await db.serverKey.findUnique({ where: { name: DB_KEY } });
  return Buffer.from(row!.key, 'base64');
}

/** The key once made never changes: each process reads it once per database client (not once per delivery). */
const known = new WeakMap<object, Promise<Buffer>>();

function databaseKey(db: TenantClient | TenantTx): Promise<Buffer> {
  let key = known.get(db);
  if (!key) {
    key = readOrMake(db);
    known.set(db, key);
    key.catch(() => known.delete(db));
  }
  return key;
}

export async function keyring(db: TenantClient | TenantTx, settings: WebhookSettings): Promise<SecretKeyring> {
  const byId = async (id: string) => {
    if (id === 'env') {
      if (!settings.secretsKey) throw new Error('a webhook secret was encrypted with WEBHOOK_SECRETS_KEY, which is not set');
      return settings.secretsKey;
    }
    return databaseKey(db);
  };
  return { current: settings.secretsKey ? { id: 'env', key: settings.secretsKey } : { id: 'db', key: await databaseKey(db) }, byId };
}
