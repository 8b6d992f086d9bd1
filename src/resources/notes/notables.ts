import type { ModelName } from '../../kernel/model-delegates.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';

// The records a note can be on (its parent, the pair notable_type / notable_id): every resource whose records a
// user keeps (not lookups, tax rates, ledgers or webhook endpoints). A resource that can have notes adds one entry
// here (its class name and its Prisma model); its routes, its GraphQL `notes` connection and its scopes follow
// (src/kernel/nesting.ts).

export const notableModels = {
  Customer: 'customer',
  Site: 'site',
  Contact: 'contact',
  Lead: 'lead',
  Job: 'job',
  Estimate: 'estimate',
  Invoice: 'invoice',
  Payment: 'payment',
  SalesOrder: 'salesOrder',
  Vendor: 'vendor',
  PurchaseOrder: 'purchaseOrder',
  Asset: 'asset',
  Ticket: 'ticket',
  Deal: 'deal',
  Project: 'project',
  Task: 'task',
  System: 'system',
  Item: 'item',
} as const satisfies Record<string, ModelName>;

export type NotableType = keyof typeof notableModels;

/** "A sales order." from SalesOrder. */
const described = (type: string) => {
  const words = type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return `${/^[aeiou]/.test(words) ? 'An' : 'A'} ${words}.`;
};

export const notableTypes: readonly NotableType[] = vocabulary('NotableType', Object.keys(notableModels) as NotableType[], {
  description: 'The type of the record a note is on.',
  describe: described,
});
