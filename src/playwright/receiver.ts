// Owns the worker's webhook receiver: a plain HTTP server on a free port that verifies Standard
// Webhooks signatures (→ 401) and events against their protocol schema (→ 400), hands each
// message.received to its `onMessage` once (204 after the waits it resolved have run; a repeated
// delivery is acknowledged only), and records webhook.test events for webhook-link.ts.
import { randomBytes } from 'node:crypto';
import createDebug from 'debug';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  MessageReceivedEvent,
  verifyWebhook,
  WebhookTestEvent,
  type Message,
  type WebhookEvent,
} from '../protocol/index.js';
import { wireCheck, type WireCheck } from '../protocol/check.js';

const debug = createDebug('mailwright:receiver');

/** Options of {@link WebhookReceiver.start}. */
interface ReceiverOptions {
  /** Interface to listen on, e.g. `127.0.0.1`. */
  host: string;
  /** Called (synchronously, before the 204 is sent) for every authentic `message.received` event. */
  onMessage: (message: Message) => void;
}

/** How many delivery ids are remembered to drop repeated deliveries. */
const SEEN_LIMIT = 10_000;
/** Largest accepted event body (a message of the service's 10 MiB maximum fits, as JSON). */
const BODY_LIMIT = 64 * 1024 * 1024;
const MESSAGE_RECEIVED = wireCheck(MessageReceivedEvent);
const WEBHOOK_TEST = wireCheck(WebhookTestEvent);

/** Answers with `status` and, when given, a JSON body; `close` ends the connection after it. */
function answer(response: ServerResponse, status: number, body?: { error: string }, close = false): void {
  const json = body === undefined ? undefined : JSON.stringify(body);
  response.writeHead(status, {
    ...(json === undefined ? {} : { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) }),
    ...(close ? { connection: 'close' } : {}),
  });
  response.end(json);
}

/** The request body as UTF-8 text; null (the rest left unread) once it passes `limit` bytes. */
function readBody(request: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners('data');
        request.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    // Past the limit it has resolved already and reads no further.
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}

/** The event in a delivery's body, checked against the protocol schema of its `type`; or why it is none. */
function readEvent(body: string): WebhookEvent | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'the body is not JSON';
  }
  const type = (parsed as { type?: unknown } | null)?.type;
  const check: WireCheck<WebhookEvent> | undefined =
    type === 'message.received' ? MESSAGE_RECEIVED : type === 'webhook.test' ? WEBHOOK_TEST : undefined;
  if (!check) return `\`/type\` is ${JSON.stringify(type)}, not message.received or webhook.test`;
  return check.matches(parsed) ? parsed : (check.mismatch(parsed) ?? 'it does not match');
}

function urlHost(host: string): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return shown.includes(':') ? `[${shown}]` : shown;
}

/**
 * The webhook receiver of one worker. Start it, register {@link url} as a webhook, then
 * give it the webhook's secret with {@link setSecret}; until then every delivery gets 503.
 * `close()` is idempotent; `await using` works.
 */
export class WebhookReceiver implements AsyncDisposable {
  /** `http://host:port/path` the receiver answers on. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** The listening host as given. */
  readonly host: string;
  /** The path deliveries must be posted to (random per receiver). */
  readonly path: string;
  readonly #server: Server;
  readonly #seenDeliveries = new Set<string>();
  readonly #testEvents = new Set<string>();
  #secret: string | undefined;
  #closing: Promise<void> | undefined;

  private constructor(server: Server, host: string, port: number, path: string) {
    this.#server = server;
    this.host = host;
    this.port = port;
    this.path = path;
    this.url = `http://${urlHost(host)}:${port}${path}`;
  }

  /** Starts a receiver on a free port of `options.host`. */
  static async start(options: ReceiverOptions): Promise<WebhookReceiver> {
    const path = `/mailwright/webhook/${randomBytes(8).toString('hex')}`;
    let receiver: WebhookReceiver | undefined;
    // One route, so no framework: a delivery is on the path from SMTP to a waiting test.
    const server = createServer((request, response) => {
      if (request.method !== 'POST' || request.url?.split('?', 1)[0] !== path) {
        request.resume();
        return answer(response, 404, { error: `not found: ${request.method} ${request.url}; deliveries are POSTed to this receiver's own path` });
      }
      readBody(request, BODY_LIMIT).then((body) => {
        if (body === null) return answer(response, 413, { error: `the body exceeds ${BODY_LIMIT} bytes` }, true);
        if (!receiver) return answer(response, 503);
        receiver.#handle(request.headers, body, response, options.onMessage);
      }, () => response.destroy());
    });
    try {
      // Port 0: the OS picks a free port and keeps it ours (no pick-release-rebind race).
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, options.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      server.close();
      throw error;
    }
    const port = (server.address() as AddressInfo).port;
    receiver = new WebhookReceiver(server, options.host, port, path);
    debug('listening on %s', receiver.url);
    return receiver;
  }

  /** Sets the webhook's `whsec_…` secret; deliveries are verified against it from now on. */
  setSecret(secret: string): void {
    this.#secret = secret;
  }

  /** True once an authentic `webhook.test` event for this webhook id arrived. */
  hasTestEvent(webhookId: string): boolean {
    return this.#testEvents.has(webhookId);
  }

  #handle(headers: IncomingMessage['headers'], body: string, response: ServerResponse, onMessage: (message: Message) => void): void {
    const secret = this.#secret;
    if (!secret) return answer(response, 503, { error: 'receiver not ready' });
    const failure = verifyWebhook(secret, headers, body);
    if (failure) {
      debug('refused a delivery: %s', failure);
      return answer(response, 401, { error: failure });
    }
    const deliveryId = String(headers['webhook-id']);
    const event = readEvent(body);
    if (typeof event === 'string') {
      debug('refused delivery %s, not a mailwright webhook event: %s', deliveryId, event);
      return answer(response, 400, { error: `not a mailwright webhook event: ${event}` });
    }
    if (this.#seenDeliveries.has(deliveryId)) {
      debug('repeated delivery %s ignored', deliveryId);
      return answer(response, 204);
    }
    if (event.type === 'webhook.test') {
      debug('test event for webhook %s', event.data.webhookId);
      this.#testEvents.add(event.data.webhookId);
    } else {
      debug('message %s for mailbox %s', event.data.id, event.data.mailboxId);
      try {
        onMessage(event.data);
      } catch (error) {
        // Not handled: answer 5xx so the service retries, and do not remember the delivery as seen.
        debug('handling message %s failed: %O', event.data.id, error);
        return answer(response, 500, { error: 'the receiving worker failed to handle the message; retry' });
      }
    }
    this.#remember(deliveryId);
    if (event.type === 'webhook.test') return answer(response, 204);
    // The waits this message resolved run first; the service hears 204 on the loop's next turn.
    setImmediate(() => answer(response, 204));
  }

  /** Remembers a handled delivery id, so a repeat of it is acknowledged and ignored (bounded). */
  #remember(deliveryId: string): void {
    this.#seenDeliveries.add(deliveryId);
    if (this.#seenDeliveries.size > SEEN_LIMIT) {
      const oldest = this.#seenDeliveries.values().next().value;
      if (oldest !== undefined) this.#seenDeliveries.delete(oldest);
    }
  }

  /** Stops listening. Idempotent. */
  close(): Promise<void> {
    // Deliveries under way are answered; idle keep-alive connections are closed now (Node closes
    // them on close()), not at their timeout.
    this.#closing ??= new Promise<void>((resolve) => this.#server.close(() => resolve())).then(() => debug('closed %s', this.url));
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
