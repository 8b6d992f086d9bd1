import { z } from './zod.ts';

// The success bodies: a single record is {data}, a list {data, has_more}.

export function singleEnvelope(record: z.ZodType): z.ZodObject {
  return z.object({ data: record });
}

export function listEnvelope(record: z.ZodType, note = 'true when another page follows; then the Link header holds its URL.'): z.ZodObject {
  return z.object({ data: z.array(record), has_more: z.boolean().openapi({ description: note }) });
}
