import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Webhook signing secrets (`whsec_` + 24 random bytes, base64) are stored encrypted, not hashed: signing a
// delivery needs the secret itself. AES-256-GCM under the operator's WEBHOOK_SECRETS_KEY, or, when none is set,
// under a key the server keeps in its database (src/db/server-keys.ts; then the secrets are only as safe as the
// database: docs/operations.md). A ciphertext names its key ("env" or "db"), so setting the variable later
// keeps the secrets made before it readable until they are rotated.

export type SecretKeyring = { current: { id: 'env' | 'db'; key: Buffer }; byId: (id: string) => Promise<Buffer> };

export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export function encryptSecret(keyring: SecretKeyring, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyring.current.key, iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', keyring.current.id, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join('.');
}

export async function decryptSecret(keyring: SecretKeyring, stored: string): Promise<string> {
  const [version, id, iv, tag, body] = stored.split('.');
  if (version !== 'v1' || !id || !iv || !tag || !body) throw new Error('unreadable webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', await keyring.byId(id), Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}
