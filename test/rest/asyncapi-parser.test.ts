import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';
import { asyncApiDocument } from '../../src/docs/asyncapi.ts';
import { CURRENT_VERSION } from '../../src/kernel/versioning.ts';

// The AsyncAPI document the server serves (src/app.ts builds it with these options), validated by the AsyncAPI
// parser: its schema and rules, $refs resolved. Built from the declarations and the settings alone, it is the same on
// every database (vitest.config.ts, sameOnEveryDatabase); what it says of the live API: asyncapi.test.ts.

/** The diagnostics of the AsyncAPI parser that are errors. */
async function parserErrors(document: object): Promise<string[]> {
  const { diagnostics } = await new Parser().parse(structuredClone(document) as never);
  return diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error).map((d) => `${d.code} at ${d.path.join('.')}: ${d.message}`);
}

const served = () => asyncApiDocument({ publicUrl: 'https://api.example.com/base', apiVersion: CURRENT_VERSION }) as any;

describe('the AsyncAPI parser', () => {
  it('finds no error in the served document, nor in the one of a server without PUBLIC_URL', async () => {
    expect(await parserErrors(served())).toEqual([]);
    expect(await parserErrors(asyncApiDocument({ apiVersion: CURRENT_VERSION }))).toEqual([]);
  }, 60_000);

  it('finds each error of a broken document (the check is not vacuous)', async () => {
    const broken = served();
    broken.components.messages.CustomerCreatedDelivery.payload = { $ref: '#/components/schemas/NoSuchEvent' };
    broken.operations.events.messages.push({ $ref: '#/channels/webhook/messages/customer.created' });
    broken.components.schemas.Customer.properties.id.type = 'uuid';
    const errors = await parserErrors(broken);
    expect(errors.some((error) => error.includes('NoSuchEvent'))).toBe(true);
    expect(errors.some((error) => error.startsWith('asyncapi3-operation-messages-from-referred-channel at operations.events.messages'))).toBe(true);
    expect(errors.some((error) => error.includes('"type" property must be equal to one of the allowed values'))).toBe(true);
  }, 60_000);
});
