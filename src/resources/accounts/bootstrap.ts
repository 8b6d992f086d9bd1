import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { AdminService } from './admin.service.ts';

/** On the first start (no account at all) creates the demo account and returns its key; later starts return null. */
export async function bootstrapDemo(admin: AdminService, prisma: PrismaClient) {
  if ((await prisma.account.count()) > 0) return null;
  return admin.createAccount({ name: 'Demo Field Services', sandbox: true });
}
