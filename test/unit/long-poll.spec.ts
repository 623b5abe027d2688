// The long-poll waiter: a matching commit (this instance's or another's) or a resync wakes it,
// and the poll then reads the store; anything else leaves it waiting, and nothing after it ended counts.
import { expect, test } from '@playwright/test';
import { waitForStoredMessage } from '../../src/server/api/long-poll.js';
import { ServiceBus } from '../../src/server/events.js';
import type { StoredMessage } from '../../src/server/store/store.js';

const message = (seq: number, mailboxId = 'mbx_a'): StoredMessage => ({
  id: `msg_${seq}`, seq, accountId: 'acc_1', mailboxId, mailbox: `${mailboxId}@mailwright.test`,
  from: null, to: [], cc: [], subject: `m${seq}`, receivedAt: 0, size: 10,
});

function waiter(bus: ServiceBus) {
  return waitForStoredMessage(bus, (m) => m.mailboxId === 'mbx_a', 10_000, new AbortController().signal);
}

test('a matching copy wakes the wait; one that does not match leaves it waiting', async () => {
  const bus = new ServiceBus();
  const wait = waiter(bus);
  bus.emit('message.stored', message(1, 'mbx_other'), [], false);
  expect(bus.listenerCount('message.stored')).toBe(1);
  bus.emit('message.stored', message(2), [], false);
  expect(await wait.arrived).toBe(true);
  expect(bus.listenerCount('message.stored')).toBe(0);
});

test('another instance\'s copy and a resync wake the wait too', async () => {
  for (const wake of [
    (bus: ServiceBus) => bus.emit('message.stored', message(3), [], true),
    (bus: ServiceBus) => bus.emit('resync'),
  ]) {
    const bus = new ServiceBus();
    const wait = waiter(bus);
    wake(bus);
    expect(await wait.arrived).toBe(true);
  }
});

test('a copy after the wait ended changes nothing', async () => {
  const bus = new ServiceBus();
  const controller = new AbortController();
  const wait = waitForStoredMessage(bus, () => true, 10_000, controller.signal);
  controller.abort();
  bus.emit('message.stored', message(4), [], false);
  expect(await wait.arrived).toBe(false);
});
