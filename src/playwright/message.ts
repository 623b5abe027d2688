// Owns MailMessage: the message as tests see it (dates as Date, addresses as strings), with
// links, verification link and code extracted lazily on first read.
import type { Attachment, Headers, Message } from '../protocol/index.js';
import { findCode, findLinks, findVerificationLink } from '../extract/index.js';

/** A link as `mailwright/extract` finds it. */
export type MessageLink = ReturnType<typeof findLinks>[number];

/**
 * A received message.
 *
 * @example
 * ```ts
 * const message = await inbox.waitForMessage({ subject: /welcome/i });
 * expect(message.from).toBe('noreply@app.test');
 * await page.goto(message.verificationLink!);
 * ```
 */
export class MailMessage {
  /** Message id (unique within the service). */
  readonly id: string;
  /** Id of the mailbox that received it. */
  readonly mailboxId: string;
  /** Address of the mailbox that received it. */
  readonly mailbox: string;
  /** Sender address (`''` when the message had no From). */
  readonly from: string;
  /** Sender display name (`''` when none). */
  readonly fromName: string;
  /** `To` addresses. */
  readonly to: readonly string[];
  /** `Cc` addresses. */
  readonly cc: readonly string[];
  /** Decoded subject. */
  readonly subject: string;
  /** When the service stored it. */
  readonly receivedAt: Date;
  /** Every header, lower-case names; repeated ones as arrays. */
  readonly headers: Headers;
  /** The text/plain body, or null. */
  readonly text: string | null;
  /** The text/html body, or null. */
  readonly html: string | null;
  /** Attachment metadata (content is in the raw source). */
  readonly attachments: readonly Attachment[];
  /** Size of the raw source in bytes. */
  readonly size: number;
  /**
   * The message exactly as the API returned it (JSON fields, not the RFC 5322 source: that
   * is `inbox.source(message)`). Called `raw` before 0.2.
   */
  readonly data: Message;
  #links: MessageLink[] | undefined;
  #verificationLink: { value: string | undefined } | undefined;
  #code: { value: string | undefined } | undefined;

  constructor(message: Message) {
    this.data = message;
    this.id = message.id;
    this.mailboxId = message.mailboxId;
    this.mailbox = message.mailbox;
    this.from = message.from?.address ?? '';
    this.fromName = message.from?.name ?? '';
    this.to = message.to.map((a) => a.address);
    this.cc = message.cc.map((a) => a.address);
    this.subject = message.subject;
    this.receivedAt = new Date(message.receivedAt);
    this.headers = message.headers;
    this.text = message.text;
    this.html = message.html;
    this.attachments = message.attachments;
    this.size = message.size;
  }

  /** Every link in the HTML and text bodies, in document order (extracted on first read). */
  get links(): MessageLink[] {
    this.#links ??= findLinks(this.data);
    return this.#links;
  }

  /** The link the mail asks the reader to follow (verify, confirm, reset, sign in), if any. */
  get verificationLink(): string | undefined {
    this.#verificationLink ??= { value: findVerificationLink(this.data) };
    return this.#verificationLink.value;
  }

  /** The one-time code the mail shows, if any. */
  get code(): string | undefined {
    this.#code ??= { value: findCode(this.data) };
    return this.#code.value;
  }

  /** `Name <address>`, or the bare address when there is no name. */
  get fromDisplay(): string {
    return this.fromName ? `${this.fromName} <${this.from}>` : this.from;
  }

  /** A plain object for logs and `JSON.stringify`, including the extracted values. */
  toJSON(): Record<string, unknown> {
    return {
      id: this.id,
      mailbox: this.mailbox,
      from: this.from,
      to: this.to,
      subject: this.subject,
      receivedAt: this.receivedAt.toISOString(),
      verificationLink: this.verificationLink,
      code: this.code,
    };
  }
}
