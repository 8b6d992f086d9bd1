import type { ModelName } from '../../kernel/model-delegates.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';

// The records a task can be about (its parent, the pair taskable_type / taskable_id), each a live record of the
// tenant. A resource that can have tasks adds one entry here (its class name and its Prisma model) and one
// `tasks: taskRelation(...)` line in its relations block.

export const taskableModels = {
  Customer: 'customer',
  Lead: 'lead',
  Site: 'site',
  Job: 'job',
  Estimate: 'estimate',
  Invoice: 'invoice',
  Deal: 'deal',
  Project: 'project',
  Ticket: 'ticket',
} as const satisfies Record<string, ModelName>;

export type TaskableType = keyof typeof taskableModels;

const described: Record<TaskableType, string> = {
  Customer: 'A customer.',
  Lead: 'A lead.',
  Site: 'A site (of a customer or a lead).',
  Job: 'A job.',
  Estimate: 'An estimate.',
  Invoice: 'An invoice.',
  Deal: 'A deal.',
  Project: 'A project.',
  Ticket: 'A ticket.',
};

export const taskableTypes: readonly TaskableType[] = vocabulary('TaskableType', Object.keys(taskableModels) as TaskableType[], {
  description: 'The type of the record a task is about.',
  describe: (type) => described[type],
});

/** The `tasks` relation of a taskable resource: its live tasks, oldest first. */
export function taskRelation(className: TaskableType) {
  return {
    kind: 'collection',
    model: 'task',
    column: 'taskable_id',
    description: `Live tasks about this ${className.toLowerCase()}, oldest first, not paginated.`,
  } as const;
}
