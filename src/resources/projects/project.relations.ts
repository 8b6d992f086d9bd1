import type { BatchedRelation, RelationReadArgs } from '../../kernel/relation.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { wireShape, type WireOf } from '../../kernel/wire-shape.ts';

// A project's rollups: computed from its jobs and their invoices when selected, never stored (one statement per
// batch of projects).

export const projectRollupShape = wireShape({
  name: 'ProjectRollup',
  description: "Figures computed from a project's records when read (never stored).",
  fields: {
    jobs_count: { kind: 'integer', description: 'How many live jobs the project has.' },
    invoiced_amount: { kind: 'string', description: "The sum of the amounts of the live invoices of the project's live jobs (a decimal string with 2 places)." },
  },
});

type ProjectRollup = WireOf<typeof projectRollupShape>;

/** The rollup of each project, aligned with the project ids. */
async function rollupsOf(projectIds: readonly string[], { db }: RelationReadArgs): Promise<ProjectRollup[]> {
  const rows = await tenantQuery<{ project_id: string; jobs_count: number; invoiced_amount: string }>(
    db,
    `SELECT j.project_id, count(DISTINCT j.id)::int AS jobs_count, coalesce(sum(i.amount), 0)::numeric(14, 2)::text AS invoiced_amount
     FROM jobs j LEFT JOIN invoices i ON i.account_id = j.account_id AND i.job_id = j.id AND i.deleted_at IS NULL
     WHERE j.account_id = $1::uuid AND j.project_id = ANY($2::uuid[]) AND j.deleted_at IS NULL GROUP BY j.project_id`,
    [...new Set(projectIds)],
  );
  const byProject = new Map(rows.map(({ project_id, ...rollup }) => [project_id, rollup]));
  return projectIds.map((id) => byProject.get(id) ?? { jobs_count: 0, invoiced_amount: '0.00' });
}

export const projectRollupRelation: BatchedRelation = {
  kind: 'batched',
  shape: projectRollupShape,
  scope: null,
  many: false,
  key: (projectId) => projectId,
  load: rollupsOf,
  description: "The project's rollups (jobs count, invoiced amount), computed when selected.",
};
