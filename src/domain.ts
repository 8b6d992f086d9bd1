import type { Redis } from 'ioredis';
import type { PrismaClient } from './generated/prisma/client.ts';
import { Authenticator } from './kernel/auth.ts';
import { systemClock, type Clock } from './kernel/clock.ts';
import { CursorCodec, SigningKeys } from './kernel/cursor.ts';
import { RateLimits, defaultBucketLimits, type Bucket } from './kernel/rate-limit.ts';
import type { ResourceDefinition } from './kernel/resource.ts';
import { ResourceService } from './kernel/resource-service.ts';
import { tenantScoped } from './kernel/tenancy.ts';
import { AdminService } from './resources/accounts/admin.service.ts';
import { customerResource } from './resources/customers/customer.resource.ts';
import { LookupService } from './resources/lookups/lookup.service.ts';

/** Every standard resource of the API, in the order they appear in docs. */
export const resources: ResourceDefinition[] = [customerResource];

export interface DomainOptions {
  prisma: PrismaClient;
  clock?: Clock;
  authCacheTtlMs?: number;
  rateLimits?: Partial<Record<Bucket, number>>;
  redis?: Redis;
}

/** The domain layer: services both adapters (REST and GraphQL) call. */
export function buildDomain(options: DomainOptions) {
  const clock = options.clock ?? systemClock;
  const db = tenantScoped(options.prisma);
  const signingKeys = new SigningKeys(options.prisma);
  const cursors = new CursorCodec(signingKeys, clock);
  const services = new Map(resources.map((def) => [def.name, new ResourceService(def, { db, cursors, clock })]));
  return {
    clock,
    prisma: options.prisma,
    db,
    signingKeys,
    cursors,
    authenticator: new Authenticator(options.prisma, clock, options.authCacheTtlMs ?? 2000),
    rateLimits: new RateLimits({ ...defaultBucketLimits, ...options.rateLimits }, options.redis),
    admin: new AdminService(options.prisma),
    lookups: new LookupService(db),
    resources: services,
    resource(name: string): ResourceService {
      const service = services.get(name);
      if (!service) throw new Error(`unknown resource ${name}`);
      return service;
    },
  };
}

export type Domain = ReturnType<typeof buildDomain>;
