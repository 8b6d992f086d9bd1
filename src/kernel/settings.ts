// The server settings that business rules depend on, taken from the configuration once (buildDomain) and handed
// to the services and the resources' hooks, so a rule never reads the environment itself and two apps in one
// process (tests) can differ.

export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: URLs may resolve to loopback, private and other non-public addresses. */
  allowPrivateNetworks: boolean;
  /**
   * URLs may resolve to loopback addresses (127.0.0.0/8, ::1): with allowPrivateNetworks, and by default in
   * development (NODE_ENV unset or `development`), so a receiver on the developer's machine works out of the box.
   */
  allowLoopback: boolean;
  /** WEBHOOK_TIMEOUT_MS: one delivery attempt. */
  timeoutMs: number;
  /** WEBHOOK_VERIFY_TIMEOUT_MS: the verification handshake. */
  verifyTimeoutMs: number;
  /** WEBHOOK_RETRY_SCHEDULE: seconds before each retry. */
  retrySchedule: readonly number[];
  /** WEBHOOK_PAUSE_AFTER_FAILURES */
  pauseAfterFailures: number;
  /** WEBHOOK_PAUSE_SECONDS */
  pauseSeconds: number;
  /** WEBHOOK_DISABLE_AFTER_DAYS */
  disableAfterDays: number;
  /** WEBHOOK_SECRETS_KEY, when set. */
  secretsKey?: Buffer;
}

export interface DomainSettings {
  webhooks: WebhookSettings;
  /** EVENT_RETENTION_DAYS */
  eventRetentionDays: number;
}

export const defaultDomainSettings: DomainSettings = {
  webhooks: {
    allowPrivateNetworks: false,
    allowLoopback: false,
    timeoutMs: 10_000,
    verifyTimeoutMs: 5_000,
    retrySchedule: [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400],
    pauseAfterFailures: 10,
    pauseSeconds: 900,
    disableAfterDays: 5,
  },
  eventRetentionDays: 30,
};
