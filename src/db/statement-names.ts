import type { SqlQuery } from '@prisma/driver-adapter-utils';

// Stable names let PostgreSQL reuse plans for the same query shape (prepared statements are off by default).
const statementNames = new Map<string, string>();

/**
 * The name of a query's prepared statement, the same for the same SQL text: Prisma's statements (PrismaPg's
 * statementNameGenerator) and the raw list reads share them. At most 5,000 texts are remembered.
 */
export function statementName(query: SqlQuery): string {
  let name = statementNames.get(query.sql);
  if (!name) {
    name = `fl_${statementNames.size.toString(36)}`;
    if (statementNames.size < 5000) statementNames.set(query.sql, name);
  }
  return name;
}
