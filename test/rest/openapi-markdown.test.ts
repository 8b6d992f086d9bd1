import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { client } from '../helpers/http.ts';

// Descriptions and summaries are CommonMark (Redoc, Swagger UI): an angle-bracket placeholder outside a code span
// is an HTML tag there and disappears (the ETag format read W/"-", the custom_fields parameter lost its field id,
// the overview turned into a code block after doc_url). Placeholders are written in code spans.

let t: TestApp;
let doc: any;

beforeAll(async () => {
  t = await startTestApp();
  doc = (await client(`${t.url}/api/v2`).get('/openapi.json')).body;
});
afterAll(() => t.close());

/** The text with its code spans (a run of backticks to the same run) removed. */
const outsideCodeSpans = (text: string) => text.replace(/(`+)[\s\S]*?\1(?!`)/g, '');

/** The `<` … `>` a Markdown renderer would take for HTML, outside code spans. */
const htmlLike = (text: string) => outsideCodeSpans(text).match(/<[^<>]*>/g) ?? [];

/** Every description and summary of the document, with where it is. */
function texts(node: unknown, at = '#'): [string, string][] {
  if (Array.isArray(node)) return node.flatMap((item, i) => texts(item, `${at}/${i}`));
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]): [string, string][] =>
    (key === 'description' || key === 'summary') && typeof value === 'string' ? [[`${at}/${key}`, value]] : texts(value, `${at}/${key}`),
  );
}

describe('descriptions and summaries of the served OpenAPI document', () => {
  it('have no <…> outside a Markdown code span', () => {
    const found = texts(doc).flatMap(([at, text]) => htmlLike(text).map((tag) => `${at}: ${tag}`));
    expect(found).toEqual([]);
    expect(texts(doc).length).toBeGreaterThan(500);
  });

  it('keep the placeholders, in code spans: the ETag format, the custom_fields parameter, the doc_url pattern, declared prose', () => {
    expect(doc.components.headers.ETag.description).toContain('`W/"<updated_at epoch ms>-<lock_version>"`');
    const customFields = doc.paths['/customers'].get.parameters.find((p: any) => p.name === 'custom_fields');
    expect(customFields.description).toContain('`custom_fields[<field_id>]=<value>` with the ids of');
    expect(doc.info.description).toContain('doc_url (`/errors/<code with dots and underscores as dashes>`)');
    // A declaration's own text (the Me key's scopes) is rendered with its placeholder in a code span.
    expect(doc.components.schemas.Me.properties.key.properties.scopes.description).toContain('`<resource>`');
  });

  it('the check finds a placeholder outside a code span and only there (it is not vacuous)', () => {
    expect(htmlLike('Weak tag W/"<updated_at epoch ms>-<lock_version>".')).toEqual(['<updated_at epoch ms>', '<lock_version>']);
    expect(htmlLike('Weak tag `W/"<updated_at epoch ms>-<lock_version>"`.')).toEqual([]);
    expect(htmlLike('``a `<b>` c`` and <d>')).toEqual(['<d>']);
  });
});
