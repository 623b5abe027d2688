// Owns how mail is pushed to a worker: its webhook receiver, the webhook registered for it
// with the service (bound mailboxes only, never catch-all), the signed test event that proves
// the service can reach it, and taking both down again — the delete retried, so the service
// is not left retrying a dead port. What arrives is handed to `onMessage`; routing it to
// waits is the hub's business.
import createDebug from 'debug';
import { MailwrightApiError, MailwrightError, type MailwrightClient } from '../client/index.js';
import type { Message } from '../protocol/index.js';
import { describeError } from './errors.js';
import { WebhookReceiver } from './receiver.js';

const debug = createDebug('mailwright:webhook');

/** Waits before the second and third try of deleting the webhook, ms. */
const DELETE_RETRY_DELAYS = [250, 1_000] as const;

/** The client calls a webhook link makes. */
export type WebhookClient = Pick<MailwrightClient, 'createWebhook' | 'testWebhook' | 'deleteWebhook'>;

/** Where the receiver listens and the URL the service should call. */
export interface WebhookLinkOptions {
  receiverHost: string;
  /** A URL template with `{port}`, `{path}`, `{host}`, when the service reaches the worker under another name. */
  receiverURL: string | undefined;
  /** Waits between tries of the final delete, ms. @default [250, 1000] */
  deleteRetryDelays?: readonly number[];
}

/** What {@link WebhookLink.start} found: a working link, or why there is none. */
export type WebhookLinkResult = { link: WebhookLink } | { reason: string; cause?: unknown };

/** A worker's confirmed webhook: mail of its bound mailboxes arrives through `onMessage`. */
export class WebhookLink {
  readonly #client: WebhookClient;
  readonly #receiver: WebhookReceiver;
  readonly #deleteRetryDelays: readonly number[];
  /** The webhook's id at the service (mailboxes are bound to it). */
  readonly webhookId: string;
  /** The URL the service calls. */
  readonly url: string;
  #closing: Promise<void> | undefined;

  private constructor(client: WebhookClient, receiver: WebhookReceiver, webhookId: string, url: string, deleteRetryDelays: readonly number[]) {
    this.#client = client;
    this.#receiver = receiver;
    this.webhookId = webhookId;
    this.url = url;
    this.#deleteRetryDelays = deleteRetryDelays;
  }

  /**
   * Starts a receiver, registers it and checks that the service's signed test event reaches
   * it. Errors that no receiver setting can fix (a refused key, an exhausted quota, no
   * service at all) are thrown; anything else comes back as a `reason`, with what was set
   * up taken down again.
   */
  static async start(client: WebhookClient, options: WebhookLinkOptions, onMessage: (message: Message) => void): Promise<WebhookLinkResult> {
    let receiver: WebhookReceiver | undefined;
    let webhookId: string | undefined;
    const deleteRetryDelays = options.deleteRetryDelays ?? DELETE_RETRY_DELAYS;
    const fail = async (reason: string, cause?: unknown): Promise<WebhookLinkResult> => {
      if (webhookId) await deleteWithRetries(client, webhookId, deleteRetryDelays);
      await receiver?.close();
      return cause === undefined ? { reason } : { reason, cause };
    };
    try {
      receiver = await WebhookReceiver.start({ host: options.receiverHost, onMessage });
      const url = registeredURL(receiver, options.receiverURL);
      // Only this worker's mailboxes (bound with webhookId) come here, never other workers' unbound mail.
      const webhook = await client.createWebhook({ url, catchAll: false });
      webhookId = webhook.id;
      receiver.setSecret(webhook.secret);
      const test = await client.testWebhook(webhook.id);
      if (!test.delivered) return await fail(`the service could not deliver a test event to ${url}: ${test.error ?? `HTTP ${test.statusCode}`}`);
      if (!receiver.hasTestEvent(webhook.id)) {
        return await fail(`the test event to ${url} was answered with HTTP ${test.statusCode}, but not by this worker's receiver (a proxy or another process answered)`);
      }
      debug('webhook %s via %s (test event took %d ms)', webhook.id, url, test.durationMs);
      return { link: new WebhookLink(client, receiver, webhook.id, url, deleteRetryDelays) };
    } catch (error) {
      const fatal =
        (error instanceof MailwrightApiError && (error.code === 'missing_api_key' || error.code === 'invalid_api_key' || error.code === 'quota_exhausted')) ||
        (error instanceof MailwrightError && error.code === 'MW_ERR_CONNECTION');
      const result = await fail(`setting up the webhook receiver failed: ${describeError(error)}`, error);
      if (fatal) throw error;
      return result;
    }
  }

  /** Deletes the webhook (retried) and closes the receiver. Idempotent; never throws. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await deleteWithRetries(this.#client, this.webhookId, this.#deleteRetryDelays);
      await this.#receiver.close().catch((error: unknown) => debug('closing the receiver failed: %O', error));
    })();
    return this.#closing;
  }
}

function registeredURL(receiver: WebhookReceiver, template: string | undefined): string {
  if (!template) return receiver.url;
  return template.replaceAll('{port}', String(receiver.port)).replaceAll('{path}', receiver.path).replaceAll('{host}', receiver.host);
}

/**
 * Deletes a webhook, trying again after each of `delays` ms: a webhook left behind would
 * have the service retry a dead port. Gone already (404) counts as deleted.
 */
async function deleteWithRetries(client: WebhookClient, webhookId: string, delays: readonly number[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.deleteWebhook(webhookId);
      debug('webhook %s deleted', webhookId);
      return;
    } catch (error) {
      if (error instanceof MailwrightApiError && error.code === 'webhook_not_found') return;
      const delay = delays[attempt];
      if (delay === undefined) {
        debug('deleting webhook %s failed %d times, giving up: %s', webhookId, attempt + 1, describeError(error));
        return;
      }
      debug('deleting webhook %s failed, trying again in %d ms: %s', webhookId, delay, describeError(error));
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
