// Test helper: a received message as the fixture builds it from the API's answer, from just
// the parts a test cares about.
import type { Message } from '../../src/protocol/index.js';
import { MailMessage } from '../../src/playwright/message.js';

export function mailMessage(body: { html?: string; text?: string; subject?: string }): MailMessage {
  const data: Message = {
    id: 'msg_1',
    mailboxId: 'mbx_1',
    mailbox: 'user@mailwright.test',
    from: { address: 'no-reply@app.test', name: 'App' },
    to: [{ address: 'user@mailwright.test', name: '' }],
    cc: [],
    subject: body.subject ?? 'Hello',
    receivedAt: new Date(0).toISOString(),
    size: 100,
    headers: {},
    text: body.text ?? null,
    html: body.html ?? null,
    attachments: [],
  };
  return new MailMessage(data);
}
