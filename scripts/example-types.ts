// Writes examples/typescript/api.d.ts: the types openapi-typescript generates from the OpenAPI document this code
// serves (`npm run examples:types`). Needs no database. test/examples/typescript-client.test.ts generates them
// again from a running server, fails when the committed file differs, and type-checks and runs the example.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { buildOpenApiDocument } from '../src/rest/openapi/document.ts';

// The document of a server on the default settings (errors links and versions as `npm start` serves them).
const document = buildOpenApiDocument();
const target = fileURLToPath(new URL('../examples/typescript/api.d.ts', import.meta.url));
// The CLI's output exactly (its header included), so the test can compare the two.
writeFileSync(target, COMMENT_HEADER + astToString(await openapiTS(JSON.stringify(document))));
console.log(`wrote ${target}`);
