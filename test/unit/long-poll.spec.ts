// The long-poll waiter: which wake-ups let a poll answer with the message it was told of, and
// which send it back to the store (another thread's or instance's commit, a resync).
import { expect, test } from '@playwright/test';
import { waitForStoredMessage } from '../../src/server/api/long-poll.js';
import { ServiceBus } from '../../src/server/events.js';
import type { StoredMessage } from '../../src/server/store/store.js';

const message = (seq: number, mailboxId = 'mbx_a'): StoredMessage => ({
  id: `msg_${seq}`, seq, accountId: 'acc_1', mailboxId, mailbox: `${mailboxId}@mailwright.test`,
  from: null, to: [], cc: [], subject: `m${seq}`, receivedAt: 0, size: 10,
});
const raw = Buffer.from('Subject: m\r\n\r\nbody\r\n');

function waiter(bus: ServiceBus) {
  return waitForStoredMessage(bus, (m) => m.mailboxId === 'mbx_a', 10_000, new AbortController().signal);
}

test('a copy committed in order wakes the wait with itself as the answer; one that does not match leaves it waiting', async () => {
  const bus = new ServiceBus();
  const wait = waiter(bus);
  bus.emit('message.stored', message(1, 'mbx_other'), [], false, { raw });
  expect(bus.listenerCount('message.stored')).toBe(1);
  bus.emit('message.stored', message(2), [], false, { raw });
  expect(await wait.arrived).toBe(true);
  expect(wait.woke).toEqual({ message: message(2), raw });
  expect(bus.listenerCount('message.stored')).toBe(0);
});

test('a copy whose earlier commits may still be on their way, another instance\'s, or a resync sends the poll to the store', async () => {
  for (const wake of [
    (bus: ServiceBus) => bus.emit('message.stored', message(3), [], false), // committed by this instance, out of order
    (bus: ServiceBus) => bus.emit('message.stored', message(3), [], true),
    (bus: ServiceBus) => bus.emit('resync'),
  ]) {
    const bus = new ServiceBus();
    const wait = waiter(bus);
    wake(bus);
    expect(await wait.arrived).toBe(true);
    expect(wait.woke).toBeNull();
  }
});

test('a copy after the wait ended changes nothing', async () => {
  const bus = new ServiceBus();
  const controller = new AbortController();
  const wait = waitForStoredMessage(bus, () => true, 10_000, controller.signal);
  controller.abort();
  bus.emit('message.stored', message(4), [], false, { raw });
  expect(await wait.arrived).toBe(false);
  expect(wait.woke).toBeNull();
});
