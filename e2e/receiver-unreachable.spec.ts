import { test, expect } from 'mailwright';
import { describeAllFlows } from './flows/all-flows.js';

// The service is told to call a port that drops every connection (held open by the config
// for the run), so the reachability check fails and `auto` falls back to polling — as it
// does when CI runs the service where it cannot reach workers.
test.use({ mailwright: { delivery: 'auto', receiverURL: `http://127.0.0.1:${process.env.E2E_REFUSING_PORT}{path}` } });

test.describe('delivery: auto with the receiver unreachable', () => {
  describeAllFlows(test);

  test('the hub fell back to polling', async ({ mail }) => {
    expect(mail.delivery).toBe('poll');
  });
});
