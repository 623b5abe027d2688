// Integration: fault rules on a test's own inbox through the fixture (injectFault, faults,
// clearFaults), and a timed-out wait that names the rule which refused or dropped its mail
// instead of only saying that nothing arrived.
import { test, expect } from '@playwright/test';
import { formatTimeoutMessage, type WaitTimeoutDetails } from '../../src/playwright/errors.js';
import { annotation, failures, runInner, startService } from './fixture/run-inner.js';

test('a timed-out wait names the fault rule that turned the mail away', async () => {
  test.setTimeout(120_000);
  await using service = await startService();
  const run = await runInner({ service, files: ['faults.inner.ts'], workers: 2 });
  expect(run.tests, failures(run)).toHaveLength(3);

  const refused = run.get('a wait names the 550 rule that refused the mail twice');
  expect(refused.status).toBe('failed');
  const address = annotation(refused, 'address')!;
  const text = refused.errors.join('\n');
  expect(text).toContain(`MailwrightTimeoutError: no code arrived at ${address} within 1 s`);
  expect(text).toContain(`Nothing arrived at ${address} since the inbox was created.`);
  expect(text).toContain('2 deliveries to this inbox were refused by its fault rule 550 5.7.1 at rcpt (hits 2 of 2); clear it with inbox.clearFaults().');
  // The existing lines stay as they were: the hint follows the rule's line.
  expect(text).toMatch(/clear it with inbox\.clearFaults\(\)\.\nHint: /);
  expect(refused.steps).toContain(`inject fault 550 5.7.1 at rcpt (times 2) into ${address}`);

  const dropped = run.get('toReceive names the rule that dropped the connection');
  expect(dropped.status).toBe('failed');
  const droppedText = dropped.errors.join('\n');
  expect(droppedText).toContain('expect(inbox).toReceive(');
  expect(droppedText).toContain('1 delivery to this inbox was dropped by its fault rule disconnect at data (hits 1, until cleared); clear it with inbox.clearFaults().');

  const passing = run.get('rules are added, counted, listed and cleared');
  expect(passing.status, failures(run)).toBe('passed');
  expect(passing.steps).toContain(`clear fault rules of ${annotation(passing, 'address')}`);
});

test('the timeout message has one line per rule that acted, in its own words', () => {
  const details: WaitTimeoutDetails = {
    address: 'user@mailwright.test',
    match: 'any message',
    target: 'message',
    timeout: 1_000,
    delivery: 'poll',
    arrived: [],
    startedAt: new Date(),
    faults: [
      { id: 'flt_1', rule: '451 4.3.0 at rcpt', effect: 'refused', hits: 2, times: 3 },
      { id: 'flt_2', rule: 'delay 2000 ms at data', effect: 'delayed', hits: 1 },
      { id: 'flt_3', rule: 'disconnect at data', effect: 'dropped', hits: 1, times: 1 },
    ],
  };
  const lines = formatTimeoutMessage(details).split('\n');
  expect(lines).toEqual([
    'no message arrived at user@mailwright.test within 1 s (delivery: poll).',
    'Nothing arrived at user@mailwright.test since the inbox was created.',
    '2 deliveries to this inbox were refused by its fault rule 451 4.3.0 at rcpt (hits 2 of 3); clear it with inbox.clearFaults().',
    '1 delivery to this inbox was delayed by its fault rule delay 2000 ms at data (hits 1, until cleared); clear it with inbox.clearFaults().',
    '1 delivery to this inbox was dropped by its fault rule disconnect at data (hits 1 of 1); clear it with inbox.clearFaults().',
    expect.stringMatching(/^Hint: check that the app under test sends to exactly user@mailwright\.test/),
  ]);
  const { faults: _, ...without } = details;
  expect(formatTimeoutMessage(without)).not.toContain('fault rule');
});
