// Owns attaching received mail to the test report: per the `attach` policy, each message
// of the inboxes a test created or used becomes its HTML (text/html), a picture of it as
// `inbox.open()` shows it (image/png .png, made by render.ts; left out when it cannot be made),
// text (text/plain) and raw source (message/rfc822 .eml) attachments.
import type { TestInfo } from '@playwright/test';
import createDebug from 'debug';
import type { ShownMail } from './mail-view.js';
import type { MailMessage } from './message.js';
import type { AttachPolicy } from './options.js';

const debug = createDebug('mailwright:attachments');

/** Most messages attached per inbox (the newest are dropped beyond it). */
export const MAX_ATTACHED_MESSAGES = 20;

/** What attaching needs to know about one inbox. */
export interface AttachableInbox {
  readonly address: string;
  /** Lists the inbox's messages in the test's window (may reject, e.g. when it expired). */
  messages(): Promise<MailMessage[]>;
  /** The raw source of one of its messages. */
  source(message: MailMessage): Promise<Buffer>;
}

/** Whether the policy asks for attachments for a test that ended like `testInfo`. */
export function shouldAttach(policy: AttachPolicy, testInfo: Pick<TestInfo, 'status' | 'expectedStatus'>): boolean {
  if (policy === 'always') return true;
  if (policy === 'never') return false;
  return testInfo.status !== testInfo.expectedStatus;
}

function label(subject: string): string {
  const clean = subject.replace(/[\r\n\t/\\]+/g, ' ').trim();
  return clean.length > 60 ? `${clean.slice(0, 59)}…` : clean || '(no subject)';
}

/** Pictures an HTML mail as `inbox.open()` shows it: a PNG, or `undefined` when none could be made. */
export type RenderMail = (mail: ShownMail) => Promise<Buffer | undefined>;

/**
 * Attaches every message of the inboxes, with a PNG of each HTML body when `render` is
 * given; failures are logged, never thrown.
 */
export async function attachMessages(testInfo: TestInfo, inboxes: Iterable<AttachableInbox>, render?: RenderMail): Promise<number> {
  let attached = 0;
  for (const inbox of inboxes) {
    let messages: MailMessage[];
    try {
      messages = await inbox.messages();
    } catch (error) {
      debug('could not list %s for the report: %O', inbox.address, error);
      continue;
    }
    for (const [index, message] of messages.slice(0, MAX_ATTACHED_MESSAGES).entries()) {
      const name = `${inbox.address} #${index + 1} ${label(message.subject)}`;
      // Read once, for the picture's `cid:` parts and the .eml.
      let source: Promise<Buffer> | undefined;
      const read = () => (source ??= inbox.source(message));
      if (message.html !== null) {
        await testInfo.attach(`${name}.html`, { body: message.html, contentType: 'text/html' });
        const png = await render?.({ message, source: read }).catch((error: unknown) => debug('could not picture %s: %O', message.id, error));
        if (png) await testInfo.attach(`${name}.png`, { body: png, contentType: 'image/png' });
      }
      if (message.text !== null) await testInfo.attach(`${name}.txt`, { body: message.text, contentType: 'text/plain' });
      try {
        const raw = await read();
        await testInfo.attach(`${name}.eml`, { body: raw, contentType: 'message/rfc822' });
      } catch (error) {
        debug('could not fetch the source of %s: %O', message.id, error);
      }
      attached++;
    }
    if (messages.length > MAX_ATTACHED_MESSAGES) debug('%s has %d messages; attached the first %d', inbox.address, messages.length, MAX_ATTACHED_MESSAGES);
  }
  return attached;
}
