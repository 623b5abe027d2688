// Unit tests of the one long-poll loop (src/playwright/poller.ts) against a scripted client:
// one request at a time, restarted when a mailbox joins, kept when one leaves, stopped when
// none is left; cursors resumed only for mailboxes they cover; failures backed off.
import { test, expect } from '@playwright/test';
import { MailwrightApiError, MailwrightError, type MailwrightClient } from '../../src/client/index.js';
import type { ListEmailsOptions } from '../../src/client/index.js';
import type { Message } from '../../src/protocol/index.js';
import { Poller } from '../../src/playwright/poller.js';

interface Call {
  options: ListEmailsOptions;
  resolve(page: { messages: Message[]; cursor: string }): void;
  reject(error: unknown): void;
  aborted: boolean;
}

/** A client whose listEmails calls wait until the test settles them. */
function scriptedClient() {
  const calls: Call[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const waiters: Array<() => void> = [];
  const client = {
    listEmails(options: ListEmailsOptions) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      return new Promise((resolve, reject) => {
        const call: Call = {
          options,
          aborted: false,
          resolve: (page) => {
            inFlight--;
            resolve(page);
          },
          reject: (error) => {
            inFlight--;
            reject(error);
          },
        };
        options.signal?.addEventListener('abort', () => {
          call.aborted = true;
          call.reject(new MailwrightError('MW_ERR_ABORTED', 'aborted'));
        }, { once: true });
        calls.push(call);
        for (const wake of waiters.splice(0)) wake();
      });
    },
  } as unknown as MailwrightClient;
  return {
    client,
    calls,
    get maxInFlight() {
      return maxInFlight;
    },
    /** Resolves when the n-th call (1-based) was made. */
    async call(n: number): Promise<Call> {
      while (calls.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return calls[n - 1]!;
    },
  };
}

const message = (id: string, mailboxId: string) => ({ id, mailboxId }) as Message;

test('one request at a time, restarted on growth, resumed by cursor, stopped when empty', async () => {
  const script = scriptedClient();
  const received: string[] = [];
  const poller = new Poller(script.client, { wait: 25 }, {
    onMessages: (messages) => received.push(...messages.map((m) => m.id)),
    onMailboxGone: async () => {},
    onError: () => {},
  });

  poller.setMailboxes(['a']);
  const first = await script.call(1);
  expect(first.options).toMatchObject({ mailbox: ['a'], after: undefined, wait: 25, includeBody: true });

  poller.setMailboxes(['a', 'b']); // b joins: the request is restarted
  const second = await script.call(2);
  expect(first.aborted).toBe(true);
  expect(second.options).toMatchObject({ mailbox: ['a', 'b'], after: undefined });

  second.resolve({ messages: [message('m1', 'a'), message('m2', 'b')], cursor: 'c1' });
  const third = await script.call(3);
  expect(received).toEqual(['m1', 'm2']);
  expect(third.options).toMatchObject({ mailbox: ['a', 'b'], after: 'c1' });

  poller.setMailboxes(['b']); // a leaves: the running request still covers b
  expect(third.aborted).toBe(false);
  third.resolve({ messages: [], cursor: 'c2' });
  const fourth = await script.call(4);
  expect(fourth.options).toMatchObject({ mailbox: ['b'], after: 'c2' });

  fourth.resolve({ messages: [], cursor: 'c3' }); // c3 covers b only
  const fifth = await script.call(5);
  expect(fifth.options).toMatchObject({ mailbox: ['b'], after: 'c3' });

  poller.setMailboxes(['b', 'a']); // a comes back: c3 does not cover it, so start over
  const sixth = await script.call(6);
  expect(fifth.aborted).toBe(true);
  expect(sixth.options).toMatchObject({ mailbox: ['b', 'a'], after: undefined });

  poller.setMailboxes([]); // nothing to wait for: the request is dropped and the loop ends
  expect(sixth.aborted).toBe(true);
  poller.setMailboxes(['c']); // a new set starts a new loop, never a second one beside the old
  const seventh = await script.call(7);
  expect(seventh.options).toMatchObject({ mailbox: ['c'], after: undefined });
  expect(script.maxInFlight).toBe(1);
  await poller.close();
  expect(seventh.aborted).toBe(true);
  expect(script.calls).toHaveLength(7);
  expect(poller.requests).toBe(7);
});

test('a wait its answer resolves may empty the set: the answered request is not aborted, and the loop ends', async () => {
  const script = scriptedClient();
  let handled: () => void = () => {};
  const answered = new Promise<void>((resolve) => (handled = resolve));
  const poller: Poller = new Poller(script.client, { wait: 25 }, {
    // The hub's last wait on `a` resolves with this answer and leaves the set.
    onMessages: () => {
      poller.setMailboxes([]);
      handled();
    },
    onMailboxGone: async () => {},
    onError: () => {},
  });
  poller.setMailboxes(['a']);
  const first = await script.call(1);
  first.resolve({ messages: [message('m1', 'a')], cursor: 'c1' });
  await answered;
  expect(first.options.signal?.aborted).toBe(false);
  await poller.close();
  expect(script.calls).toHaveLength(1);
});

test('a gone mailbox is reported, other failures are retried', async () => {
  const script = scriptedClient();
  const gone: string[][] = [];
  const errors: unknown[] = [];
  const poller = new Poller(script.client, { wait: 5 }, {
    onMessages: () => {},
    onMailboxGone: async (ids) => {
      gone.push(ids);
    },
    onError: (error) => errors.push(error),
  });
  poller.setMailboxes(['x']);
  (await script.call(1)).reject(new MailwrightApiError({ status: 404, code: 'mailbox_not_found', detail: 'gone', method: 'GET', url: '/api/emails', message: 'gone' }));
  await script.call(2);
  expect(gone).toEqual([['x']]);
  (await script.call(2)).reject(new MailwrightError('MW_ERR_CONNECTION', 'refused'));
  const third = await script.call(3); // after a short backoff
  expect(errors).toHaveLength(1);
  expect(third.options.mailbox).toEqual(['x']);
  await poller.close();
  expect(third.aborted).toBe(true);
  await poller.close(); // idempotent
});
