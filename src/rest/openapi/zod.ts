import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// The zod the document's schemas are written with: extended with .openapi() (names, descriptions, parameter
// placement). Every module of this folder imports z from here, so the extension is in place before any use.

extendZodWithOpenApi(z);

export { z };
