import { describe, expect, it } from 'vitest';
import { detailIn, listParameterName, subjectError, type ErrorSubject } from '../../src/kernel/errors.ts';
import { graphqlSubjectName } from '../../src/graphql/schema/list-arguments.ts';
import { listRequestOf } from '../../src/rest/list-request.ts';

// A list request in the kernel's terms and its refusals' subjects, as each API names them (src/kernel/listing.ts
// ListRequest, src/rest/list-request.ts, src/graphql/schema/list-arguments.ts), without starting the app.

describe('a list request', () => {
  it('is read from a query string in order: page, sort, q, filters with or without an operator, custom field filters', () => {
    expect(
      listRequestOf([
        ['limit', '10'],
        ['sort', '-number'],
        ['q', 'boiler'],
        ['status[in]', 'Active,Gold'],
        ['organization', 'Acme'],
        ['custom_fields[0f1c]', 'x'],
        ['cursor', 'abc'],
      ]),
    ).toEqual({
      limit: '10',
      sort: '-number',
      q: 'boiler',
      cursor: 'abc',
      filters: [
        { field: 'status', op: 'in', value: 'Active,Gold' },
        { field: 'organization', op: undefined, value: 'Acme' },
      ],
      customFields: [{ id: '0f1c', value: 'x' }],
    });
  });

  it('refuses what only a query string can get wrong: a repeated parameter, a name of no parameter shape, an operator on a page parameter', () => {
    expect(() => listRequestOf([['status', 'a'], ['status', 'b']])).toThrow('status: given more than once');
    expect(() => listRequestOf([['Status!', 'a']])).toThrow('unknown parameter: Status!');
    expect(() => listRequestOf([['limit[gt]', '5']])).toThrow('unknown parameter: limit[gt]');
    expect(() => listRequestOf([['custom_fields', 'x']])).toThrow('unknown parameter: custom_fields');
  });

  it('has its refusals named by each API in its own words', () => {
    const cases: [ErrorSubject, string, string][] = [
      [{ kind: 'limit' }, 'limit', 'first'],
      [{ kind: 'cursor' }, 'cursor', 'after'],
      [{ kind: 'q' }, 'q', 'filter.q'],
      [{ kind: 'filter', field: 'status', op: 'in' }, 'status[in]', 'filter.statusIn'],
      [{ kind: 'filter', field: 'scheduled_start', op: 'gte' }, 'scheduled_start[gte]', 'filter.scheduledStartGte'],
      [{ kind: 'filter', field: 'customer_id' }, 'customer_id', 'filter.customerId'],
      [{ kind: 'custom_field', id: '0f1c' }, 'custom_fields[0f1c]', 'filter.customFields[0f1c]'],
      [{ kind: 'parameter', name: 'system_type' }, 'system_type', 'systemType'],
    ];
    for (const [subject, rest, graphql] of cases) {
      const error = subjectError('filter.invalid', subject, (name) => `${name}: is wrong`);
      expect([detailIn(error, listParameterName), detailIn(error, graphqlSubjectName)]).toEqual([`${rest}: is wrong`, `${graphql}: is wrong`]);
    }
  });
});
