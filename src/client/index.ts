// Entry point of `mailwright/client`: the typed HTTP client, its errors and option types,
// and the protocol types its methods return.
import type { QuotaSnapshot } from './quota-headers.js';

export { MailwrightClient } from './client.js';
export {
  CLIENT_ERROR_CODES,
  MailwrightApiError,
  MailwrightError,
  type ApiErrorResponseCode,
  type ClientErrorCode,
  type MailwrightApiErrorInit,
} from './errors.js';
export {
  DEFAULT_MAX_RETRY_WAIT,
  DEFAULT_TIMEOUT,
  LONG_POLL_GRACE,
  MAX_429_RETRIES,
  type GetMailboxOptions,
  type ListDeliveriesOptions,
  type ListEmailsOptions,
  type MailwrightClientOptions,
  type RawMessageOptions,
  type RequestOptions,
} from './options.js';
export { parseQuotaHeaders, type QuotaSnapshot, type ResponseHeaders } from './quota-headers.js';
/**
 * The quota as the last response reported it.
 * @deprecated Renamed to {@link QuotaSnapshot} (the server has a different `QuotaState`); this alias goes in 1.0.
 */
export type QuotaState = QuotaSnapshot;
export { parseRetryAfter } from './retry-after.js';
export { API_KEY_HEADER, isApiErrorCode } from '../protocol/index.js';
export type {
  Address,
  AnyProblem,
  ApiErrorCode,
  Attachment,
  ConfigResponse,
  CreatedWebhook,
  CreateWebhookBody,
  Delivery,
  DeliveryAttempt,
  DeliveryStatus,
  FaultRule,
  FaultRuleBody,
  FaultStage,
  FaultsResponse,
  GenerateMailboxBody,
  HealthResponse,
  HtmlCheckClient,
  HtmlCheckIssue,
  HtmlCheckReport,
  ListEmailsResponse,
  ListEmailsSummaryResponse,
  ListEmailsWithBodyResponse,
  Mailbox,
  MailboxMessagesResponse,
  Message,
  MessageSummary,
  Problem,
  QuotaUsage,
  RedeemResponse,
  Refusal,
  Webhook,
  WebhookTestResponse,
} from '../protocol/index.js';
