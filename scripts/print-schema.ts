// Prints the GraphQL schema built from the code to schema.graphql (`npm run schema:print`). Needs no
// database. test/graphql/schema.test.ts fails when the committed file differs from what this prints.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printedSchema } from '../src/graphql/schema/schema.ts';

const target = fileURLToPath(new URL('../schema.graphql', import.meta.url));
writeFileSync(target, printedSchema());
console.log(`wrote ${target}`);
