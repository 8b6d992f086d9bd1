import { Webhook } from 'standardwebhooks';

// Standard Webhooks signatures (the `standardwebhooks` package): `webhook-id`, `webhook-timestamp` (Unix
// seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`). For 24 hours
// after a rotation the previous secret signs too: the header then carries both signatures, space-separated,
// and a receiver holding either secret accepts the delivery.

export function signedHeaders(secrets: readonly string[], messageId: string, at: Date, body: string): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(messageId, at, body));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
