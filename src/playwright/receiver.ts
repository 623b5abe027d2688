// Owns the worker's webhook receiver: a fastify server on a free port that verifies
// Standard Webhooks signatures (invalid → 401), checks the event against its protocol schema
// (mismatch → 400), hands message.received events to the hub, remembers webhook.test events
// so the hub can confirm reachability, and answers 204 as soon as the waits a message
// resolved have run.
import { randomBytes } from 'node:crypto';
import createDebug from 'debug';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
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
  readonly #app: FastifyInstance;
  readonly #seenDeliveries = new Set<string>();
  readonly #testEvents = new Set<string>();
  #secret: string | undefined;
  #closing: Promise<void> | undefined;

  private constructor(app: FastifyInstance, host: string, port: number, path: string) {
    this.#app = app;
    this.host = host;
    this.port = port;
    this.path = path;
    this.url = `http://${urlHost(host)}:${port}${path}`;
  }

  /** Starts a receiver on a free port of `options.host`. */
  static async start(options: ReceiverOptions): Promise<WebhookReceiver> {
    const path = `/mailwright/webhook/${randomBytes(8).toString('hex')}`;
    const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT });
    let receiver: WebhookReceiver | undefined;
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    app.post(path, async (request, reply) => {
      if (!receiver) return reply.code(503).send();
      return receiver.#handle(request.headers, typeof request.body === 'string' ? request.body : '', reply, options.onMessage);
    });
    try {
      // Port 0: the OS picks a free port and keeps it ours (no pick-release-rebind race).
      await app.listen({ host: options.host, port: 0 });
    } catch (error) {
      await app.close().catch(() => {});
      throw error;
    }
    const port = (app.server.address() as AddressInfo).port;
    receiver = new WebhookReceiver(app, options.host, port, path);
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

  #handle(
    headers: Record<string, string | string[] | undefined>,
    body: string,
    reply: { code(status: number): { send(payload?: unknown): unknown } },
    onMessage: (message: Message) => void,
  ) {
    const secret = this.#secret;
    if (!secret) return reply.code(503).send({ error: 'receiver not ready' });
    const failure = verifyWebhook(secret, headers, body);
    if (failure) {
      debug('refused a delivery: %s', failure);
      return reply.code(401).send({ error: failure });
    }
    const deliveryId = String(headers['webhook-id']);
    const event = readEvent(body);
    if (typeof event === 'string') {
      debug('refused delivery %s, not a mailwright webhook event: %s', deliveryId, event);
      return reply.code(400).send({ error: `not a mailwright webhook event: ${event}` });
    }
    if (this.#seenDeliveries.has(deliveryId)) {
      debug('repeated delivery %s ignored', deliveryId);
      return reply.code(204).send();
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
        return reply.code(500).send({ error: 'the receiving worker failed to handle the message; retry' });
      }
    }
    this.#remember(deliveryId);
    if (event.type === 'webhook.test') return reply.code(204).send();
    // The waits this message resolved run first; the service hears 204 on the loop's next turn.
    return new Promise((resolve) => setImmediate(() => resolve(reply.code(204).send())));
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
    this.#closing ??= this.#app.close().then(() => debug('closed %s', this.url));
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
