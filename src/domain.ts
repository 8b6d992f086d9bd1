import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import type { PrismaClient } from './generated/prisma/client.ts';
import { Authenticator } from './kernel/auth.ts';
import { systemClock, type Clock } from './kernel/clock.ts';
import { CursorCodec, SigningKeys } from './kernel/cursor.ts';
import { RateLimits, defaultBucketLimits, type Bucket } from './kernel/rate-limit.ts';
import type { ResourceDefinition } from './kernel/resource.ts';
import type { RawRunner } from './kernel/tenant-sql.ts';
import { ResourceService } from './kernel/resource-service.ts';
import { AttachmentService } from './kernel/attachments.ts';
import { FileLinks } from './kernel/file-links.ts';
import type { FileStorage } from './kernel/file-storage.ts';
import { RecordLocator } from './kernel/record-locator.ts';
import { IdempotencyStore } from './kernel/idempotency.ts';
import { tenantScoped } from './kernel/tenancy.ts';
import { ApiVersions } from './kernel/versioning.ts';
import { defaultDomainSettings, type DomainSettings } from './kernel/settings.ts';
import { AdminService } from './resources/accounts/admin.service.ts';
import { ContactLinkageService } from './resources/contacts/contact-linkage.service.ts';
import { LeadConversionService } from './resources/leads/lead-conversion.service.ts';
import { EstimateConversionService } from './resources/estimates/estimate-conversion.service.ts';
import { TicketConversionService } from './resources/tickets/ticket-conversion.service.ts';
import { DispatchBoardService } from './resources/jobs/dispatch-board.service.ts';
import { BillingService } from './resources/invoices/billing.service.ts';
import { ReceivingService } from './resources/purchase-orders/receiving.service.ts';
import { LookupService } from './resources/lookups/lookup.service.ts';
import { RecurringService } from './resources/recurring/recurring.service.ts';
import { resources as declaredResources } from './resources/index.ts';
import { WebhookDeliverer } from './resources/webhooks/delivery.ts';
import { EventFeedService } from './events/event-feed.service.ts';
import { EventStreams } from './events/event-streams.ts';
import { WebhookService } from './resources/webhooks/webhook.service.ts';
import { topicCatalog } from './events/topics.ts';

/** Every standard resource of the API, in the order they appear in docs (the list is src/resources/index.ts). */
export const resources: ResourceDefinition[] = declaredResources;

export interface DomainOptions {
  prisma: PrismaClient;
  /** Raw reads for list pages (Database.raw); defaults to Prisma. */
  raw?: RawRunner;
  clock?: Clock;
  authCacheTtlMs?: number;
  rateLimits?: Partial<Record<Bucket, number>>;
  redis?: Redis;
  /** Accepted API versions (config API_VERSIONS); default the current version only. */
  apiVersions?: readonly string[];
  /** How long an idempotency key's claim holds (config IDEMPOTENCY_LOCK_SECONDS); default 60 s. */
  idempotencyLockMs?: number;
  /** Settings rules depend on (webhooks, event retention); default defaultDomainSettings. */
  settings?: DomainSettings;
  /** Where background work (webhook deliveries) logs; default silent. */
  logger?: Logger;
  /** Where attachment files are stored (the app's FILE_STORAGE: src/files/); none: attachments cannot be written or read. */
  fileStorage?: FileStorage;
  /** Where attachment downloads are served (`<PUBLIC_URL>/api/v2/files`; default the relative `/api/v2/files`). */
  filesUrl?: string;
}

/** The domain layer: services both adapters (REST and GraphQL) call. */
export function buildDomain(options: DomainOptions) {
  const clock = options.clock ?? systemClock;
  const settings = options.settings ?? defaultDomainSettings;
  const db = tenantScoped(options.prisma);
  const signingKeys = new SigningKeys(options.prisma);
  const cursors = new CursorCodec(signingKeys, clock);
  const versions = new ApiVersions(options.apiVersions);
  const lookup = (name: string): ResourceService => {
    const service = services.get(name);
    if (!service) throw new Error(`unknown resource ${name}`);
    return service;
  };
  const byModel = (model: string): ResourceService | undefined => [...services.values()].find((service) => service.def.model === model);
  const services: Map<string, ResourceService> = new Map(resources.map((def) => [def.name, new ResourceService(def, { db, raw: options.raw ?? db, cursors, clock, resources: lookup, byModel, settings, topics: topicCatalog })]));
  const authenticator = new Authenticator(options.prisma, clock, options.authCacheTtlMs ?? 2000);
  return {
    clock,
    settings,
    prisma: options.prisma,
    db,
    signingKeys,
    cursors,
    authenticator,
    rateLimits: new RateLimits({ ...defaultBucketLimits, ...options.rateLimits }, options.redis),
    versions,
    admin: new AdminService(options.prisma, versions, (change) => authenticator.forget(change)),
    lookups: new LookupService(db),
    linkages: new ContactLinkageService(db, clock),
    leadConversion: new LeadConversionService(db, clock, lookup('lead'), lookup('customer'), lookup('site'), lookup('deal')),
    estimateConversion: new EstimateConversionService(db, clock, lookup('estimate'), lookup('job'), lookup('invoice')),
    ticketConversion: new TicketConversionService(db, clock, lookup('ticket'), lookup('job')),
    billing: new BillingService(db, lookup('invoice')),
    receiving: new ReceivingService(db, clock, lookup('purchase_order'), lookup('purchase_order_receipt')),
    dispatchBoard: new DispatchBoardService(lookup('job')),
    recurring: new RecurringService(db, options.prisma, clock, lookup, options.logger),
    locator: new RecordLocator(resources, options.raw ?? db),
    idempotency: new IdempotencyStore(options.raw ?? db, clock, { lockMs: options.idempotencyLockMs ?? 60_000 }),
    eventFeed: new EventFeedService(options.raw ?? db, cursors),
    eventStreams: new EventStreams(db, authenticator),
    webhooks: new WebhookService(db, settings, lookup, new WebhookDeliverer(db, settings, lookup, options.logger ?? pino({ level: 'silent' })), topicCatalog),
    attachments: new AttachmentService({
      db,
      prisma: options.prisma,
      storage: options.fileStorage ?? null,
      links: new FileLinks(signingKeys, clock, options.filesUrl),
      clock,
      serviceOf: (className) => [...services.values()].find((service) => service.def.className === className),
    }),
    resources: services,
    resource: lookup,
  };
}

export type Domain = ReturnType<typeof buildDomain>;

// What the adapters and the app use of the resources besides the services above, so that nothing above the domain
// imports src/resources/ directly (the dependency rule: .dependency-cruiser.cjs): answers that are not records
// (`me`, lookups, webhook topics and secrets), what the declarations add up to (scopes, lookup classes, reference
// targets), the board's limits, and the administration of accounts and keys (the CLI, the demo account).
export { meShape } from './resources/identity/me.shape.ts';
export { describeCaller } from './resources/identity/me.service.ts';
export { lookupKinds, type LookupKind } from './resources/lookups/lookup.service.ts';
export { systemOptionShape } from './resources/lookups/lookup.shapes.ts';
export { webhookSecretShape, webhookTopicShape } from './resources/webhooks/webhook.shapes.ts';
export { allScopes, isScope, relatedNames } from './resources/catalog.ts';
export { referenceTargets } from './resources/reference-targets.ts';
export { DISPATCH_DEFAULT_LIMIT, DISPATCH_MAX_LIMIT } from './resources/jobs/dispatch-board.service.ts';
export { AdminError, AdminService, isCurrencyCode, isTimeZone, type CreatedKey } from './resources/accounts/admin.service.ts';
export { bootstrapDemo } from './resources/accounts/bootstrap.ts';
