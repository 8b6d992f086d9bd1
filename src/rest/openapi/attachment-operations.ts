import { lookupClassOf, restPath, serves, type ResourceDefinition } from '../../kernel/resource.ts';
import { DEFAULT_MAX_FILE_BYTES } from '../../kernel/attachments.ts';
import { FILE_LINK_LIFETIME_SECONDS } from '../../kernel/file-links.ts';
import type { DocumentBuilder } from './document-builder.ts';
import { responseHeaders } from './headers.ts';
import { camel, title, words } from './naming.ts';
import { z } from './zod.ts';

// Attachment custom fields (src/rest/attachments.ts; docs/decisions.md, Attachments): PUT (multipart/form-data)
// and DELETE on /{resource}/{id}/custom_fields/{field_id} of every resource with custom fields and an update, and
// GET /files/{file_id}, the bytes, by a signed link or with the key.

const fieldId = (def: ResourceDefinition) =>
  z.string().openapi({ format: 'uuid', param: { name: 'field_id', in: 'path', description: `The id of an attachment custom field definition (GET /custom_field_definitions?related_name=${lookupClassOf(def)}). Unknown, retired or another account's: 404 resource.not_found; a field of another type or class: 422 validation.failed.` } });

/** PUT and DELETE of an attachment field of the resource's records (a resource with custom fields and an update). */
export function registerAttachmentOperations({ parameters, addOperation }: Pick<DocumentBuilder, 'parameters' | 'addOperation'>, def: ResourceDefinition, current: ReturnType<DocumentBuilder['response']>): void {
  if (!def.conventions.customFields || !serves(def, 'update')) return;
  const path = `/${restPath(def)}/{id}/custom_fields/{field_id}`;
  const noun = words(def.name);
  const tags = [title(def.plural)];
  const params = z.object({ id: parameters.recordId, field_id: fieldId(def) });
  const write = `${def.scope}:write`;
  addOperation(
    { kind: 'attachment_set', def },
    {
      method: 'put',
      path,
      operationId: camel(`set_${def.name}_attachment`),
      tags,
      summary: `Set an attachment field of a ${noun}`,
      description: `Stores the file and sets the attachment custom field to it, answering the record with its new ETag (and appending its updated event). The body is multipart/form-data with exactly one file part (any part name): none or several, 422 validation.failed; not multipart, 415. The file's content type is judged from its bytes and must be one the definition's options allow (empty: any), else 422; a file over the definition's max_size_bytes (default ${DEFAULT_MAX_FILE_BYTES}) is refused with 413 as it streams. The filename is kept without directories or control characters. The field's previous file is removed. The value is {file_id, filename, content_type, size, sha256, url}: url is a signed link to GET /files/{file_id}, valid ${FILE_LINK_LIFETIME_SECONDS / 3600} hour from the read that served it.`,
      request: {
        params,
        headers: [parameters.ifMatch],
        body: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: z.object({ file: z.string().openapi({ format: 'binary', description: 'The file (one part; its filename and Content-Type are read).' }) }).openapi({ description: 'One file part.' }),
            },
          },
        },
      },
      scopes: [write],
      ok: { 200: current },
    },
  );
  addOperation(
    { kind: 'attachment_clear', def },
    {
      method: 'delete',
      path,
      operationId: camel(`clear_${def.name}_attachment`),
      tags,
      summary: `Clear an attachment field of a ${noun}`,
      description: 'Clears the attachment custom field, answering the record with its new ETag; its file is removed.',
      request: { params, headers: [parameters.ifMatch] },
      scopes: [write],
      ok: { 200: current },
    },
  );
}

/** GET /files/{file_id}: an attachment's bytes. */
export function registerFileOperation({ addOperation }: Pick<DocumentBuilder, 'addOperation'>): void {
  addOperation(
    { kind: 'file' },
    {
      method: 'get',
      path: '/files/{file_id}',
      operationId: 'downloadFile',
      tags: ['Files'],
      summary: 'Download an attachment',
      description: `The bytes of an attachment custom field's file, with its stored Content-Type, Content-Disposition: attachment with its filename, X-Content-Type-Options: nosniff, a Content-Security-Policy that runs nothing, and ETag the quoted sha256. Either with the key (the read scope of the record's resource; another account's file: 404) or, without a key, by the signed link a record serves in the attachment value's url (expires and signature; altered, of another file or older than ${FILE_LINK_LIFETIME_SECONDS} seconds: 403 file.signature_invalid). A file replaced, cleared or of a deleted record: 404.`,
      request: {
        params: z.object({ file_id: z.string().openapi({ format: 'uuid', param: { name: 'file_id', in: 'path', description: "The file_id of an attachment value. Unknown, another account's or no longer attached: 404 resource.not_found." } }) }),
        query: z
          .object({
            expires: z.string().regex(/^\d{1,12}$/).optional().openapi({ param: { description: "Of a signed link (the attachment value's url): when it expires, in Unix seconds." } }),
            signature: z.string().optional().openapi({ param: { description: 'Of a signed link: its signature.' } }),
          })
          .strict(),
      },
      scopes: [],
      ok: {
        200: {
          description: 'The file.',
          headers: responseHeaders(),
          content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary', description: 'The bytes, with the stored Content-Type.' }) } },
        },
      },
    },
  );
}
