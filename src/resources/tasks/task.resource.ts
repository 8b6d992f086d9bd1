import { addError } from '../../kernel/body.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { modelDelegate } from '../../kernel/model-delegates.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';
import { checkActiveUser } from '../accounts/active-user.ts';
import { taskableModels, taskableTypes } from './taskables.ts';

// Tasks: a to-do of a user, optionally about one record of the tenant (taskable_type / taskable_id, taskables.ts).
// completed_at follows the status: set when the task moves into the completing status, cleared when it leaves it.

/** The status that completes a task (the last of the defaults); an account that renames it opts out of completed_at. */
export const TASK_DONE_STATUS = 'Done';

export const taskPriorities = vocabulary('TaskPriority', ['low', 'normal', 'high', 'urgent'], {
  description: 'How urgent a task is; the priority sort orders them low, normal, high, urgent.',
  describe: (priority) => ({ low: 'Can wait.', normal: 'The usual priority.', high: 'Before the normal ones.', urgent: 'Before anything else.' })[priority],
});

/** The rank of each priority (the column the priority sort reads). */
const priorityRank = Object.fromEntries(taskPriorities.map((priority, rank) => [priority, rank])) as Record<(typeof taskPriorities)[number], number>;

export const taskResource = defineResource({
  name: 'task',
  description: 'A to-do of a user of the account: what to do, by when and how urgently, optionally about one record (a customer, a lead, a job ...). Completing it records when.',
  fields: {
    title: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'What is to be done, in a line.' },
    description: { kind: 'text', create: 'optional', update: 'optional', description: 'Details of the task.' },
    due_date: { kind: 'date', create: 'optional', update: 'optional', description: 'The day the task is due.' },
    priority: {
      kind: 'string',
      enum: taskPriorities,
      create: 'optional',
      update: 'optional',
      nullable: false,
      alwaysSet: true,
      description: 'How urgent the task is: low, normal, high or urgent.',
      writeRule: 'Default: normal.',
    },
    assignee_id: {
      kind: 'int64',
      create: 'optional',
      update: 'optional',
      references: { model: 'user', label: 'user of this account' },
      description: 'Id of the user of the account who is to do the task.',
      writeRule: 'Must be an active user when it is set or changed.',
    },
    taskable_type: {
      kind: 'string',
      enum: taskableTypes,
      create: 'optional',
      update: 'optional',
      description: 'The type of the record the task is about.',
      writeRule: 'Given together with {taskable_id} (both, or both null).',
    },
    taskable_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      description: 'The id of the record the task is about.',
      writeRule: 'Must name a live record of {taskable_type} in the account; given together with {taskable_type}.',
    },
  },
  readOnly: {
    completed_at: { kind: 'datetime', nullable: true, description: `When the task was completed (moved to the status ${TASK_DONE_STATUS}); null while it is not.` },
  },
  conventions: { number: true, status: { defaults: ['Open', TASK_DONE_STATUS] }, labels: true, customFields: true, softDelete: true },
  relations: {
    taskable: {
      kind: 'polymorphic',
      typeColumn: 'taskable_type',
      idColumn: 'taskable_id',
      models: taskableModels,
      union: { name: 'Taskable', description: 'A record a task can be about.' },
      description: 'The record the task is about, while it is live; null when the task is about no record.',
    },
  },
  list: {
    filters: {
      status: ['eq', 'in'],
      assignee_id: ['eq'],
      priority: ['eq', 'in'],
      due_date: rangeOps,
      taskable_type: ['eq'],
      taskable_id: ['eq'],
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: {
      created_at: true,
      updated_at: true,
      number: true,
      title: true,
      status: true,
      due_date: { nullable: true },
      priority: { column: 'priority_rank', type: 'integer' },
    },
    defaultSort: '-created_at',
    search: { fields: ['title', 'number', 'status', 'priority'], text: 'title, number, status and priority' },
  },
  hooks: {
    async beforeWrite({ tx, mode, values, existing, errors, now }) {
      if (values.priority !== undefined) (values as Record<string, unknown>).priority_rank = priorityRank[values.priority];
      await checkActiveUser(tx, 'assignee_id', values.assignee_id, existing?.assignee_id, errors);

      // The parent: both or neither, a live record of the type in the tenant (checked when either is written).
      if (values.taskable_type !== undefined || values.taskable_id !== undefined) {
        const type = values.taskable_type !== undefined ? values.taskable_type : (existing?.taskable_type as typeof values.taskable_type);
        const id = values.taskable_id !== undefined ? values.taskable_id : existing?.taskable_id;
        if (errors.taskable_type || errors.taskable_id) {
          // Already refused on its own.
        } else if ((type ?? null) === null && (id ?? null) !== null) {
          addError(errors, 'taskable_type', 'is missing (give taskable_type with taskable_id)');
        } else if ((type ?? null) !== null && (id ?? null) === null) {
          addError(errors, 'taskable_id', 'is missing (give taskable_id with taskable_type)');
        } else if (type && id) {
          const found = await modelDelegate(tx, taskableModels[type]).count({ where: { id: id.toLowerCase(), deleted_at: null } });
          if (found === 0) addError(errors, 'taskable_id', `does not match any ${type}`);
          else values.taskable_id = id.toLowerCase();
        }
      }

      // completed_at follows the status (which is set on update only).
      if (mode === 'update' && values.status !== undefined && values.status !== existing?.status) {
        if (values.status === TASK_DONE_STATUS) values.completed_at = now;
        else if (existing?.status === TASK_DONE_STATUS) values.completed_at = null;
      }
    },
  },
});
