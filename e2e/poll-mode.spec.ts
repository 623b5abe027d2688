import { test, expect } from 'mailwright';
import { describeAllFlows } from './flows/all-flows.js';

test.use({ mailwright: { delivery: 'poll' } });

test.describe('delivery: poll', () => {
  describeAllFlows(test);

  test('the hub really polls', async ({ mail }) => {
    expect(mail.delivery).toBe('poll');
    expect(mail.webhookURL).toBeUndefined();
  });
});
