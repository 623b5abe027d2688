import { test, expect } from 'mailwright';
import { describeAllFlows } from './flows/all-flows.js';

// The service is told to call a closed port, so the reachability check fails and `auto`
// falls back to polling — as it does when CI runs the service where it cannot reach workers.
test.use({ mailwright: { delivery: 'auto', receiverURL: 'http://127.0.0.1:9{path}' } });

test.describe('delivery: auto with the receiver unreachable', () => {
  describeAllFlows(test);

  test('the hub fell back to polling', async ({ mail }) => {
    expect(mail.delivery).toBe('poll');
  });
});
