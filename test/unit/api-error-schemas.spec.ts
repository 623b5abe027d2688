// Tests that the error side of the wire has one definition: a problem document's `code` is
// one of API_ERRORS, and the per-status error responses routes declare (and OpenAPI shows)
// are derived from that table.
import { expect, test } from '@playwright/test';
import { API_ERRORS, AnyProblem, Problem, problemType, type ApiErrorCode } from '../../src/protocol/index.js';
import { wireCheck } from '../../src/protocol/check.js';
import { errorResponses } from '../../src/server/api/schema-helpers.js';

const descriptionOf = (schema: object) => (schema as { description?: string }).description;
const problem = (code: string) => ({ type: problemType(code as ApiErrorCode), title: 'T', status: 400, detail: 'd', code });

test('a Problem carries one of the API_ERRORS codes; a client reads any code', () => {
  const strict = wireCheck(Problem);
  const lenient = wireCheck(AnyProblem);
  expect(strict.matches(problem('mailbox_not_found'))).toBe(true);
  expect(strict.mismatch(problem('mailbox_frozen'))).toBe('`/code` must be equal to one of the allowed values');
  expect(lenient.matches(problem('mailbox_frozen'))).toBe(true);
  expect(lenient.mismatch({ code: 'mailbox_frozen' })).toBe('`/type` is missing');
});

test('each status declares exactly the codes API_ERRORS gives it, and names them in its description', () => {
  const statuses = [...new Set(Object.values(API_ERRORS).map((e) => e.status))];
  const responses = errorResponses(...statuses);
  expect(Object.keys(responses).map(Number).sort()).toEqual([...statuses].sort());
  for (const status of statuses) {
    const expected = (Object.keys(API_ERRORS) as ApiErrorCode[]).filter((code) => API_ERRORS[code].status === status);
    const schema = responses[status]!;
    expect(schema.properties.code.enum, String(status)).toEqual(expected);
    for (const code of expected) expect(descriptionOf(schema)).toContain(code);
  }
  expect(descriptionOf(responses[404]!)).toBe(
    "mailbox_not_found, message_not_found, webhook_not_found, or not_found (another account's resources are 404 too)",
  );
});

test('a status no code answers is refused when the route is declared', () => {
  expect(() => errorResponses(418)).toThrow('no code in API_ERRORS answers 418');
});
