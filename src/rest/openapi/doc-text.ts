import { wireText } from '../../kernel/api-text.ts';

// Declared texts (field, shape, collection, action and resource descriptions) are plain prose shared by both APIs
// (src/kernel/api-text.ts); OpenAPI descriptions are CommonMark, where an angle-bracket placeholder such as
// <resource> is an HTML tag that Redoc and Swagger UI swallow. The document's own sentences write placeholders in
// code spans at their source; declared prose gets the same treatment when it is rendered here.

/** A code span, a run of backticks to the same run (CommonMark), or a placeholder outside one. */
const spanOrPlaceholder = /(`+)[\s\S]*?\1(?!`)|<[^<>\s][^<>]*>/g;

/** A declared text as an OpenAPI description: markers become wire names, placeholders become code spans. */
export function docText(text: string): string;
export function docText(text: string | undefined): string | undefined;
export function docText(text: string | undefined): string | undefined {
  return wireText(text)?.replace(spanOrPlaceholder, (match) => (match.startsWith('`') ? match : `\`${match}\``));
}
