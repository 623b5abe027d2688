// Owns the public face of webhook delivery: the dispatcher, the test event, the delivery
// log's wire shape and the SSRF guard for webhook URLs.
export { WebhookDispatcher, type DispatcherOptions } from './dispatcher.js';
export { sendTestEvent } from './test-event.js';
export { toDeliveryDto, toAttemptDto } from './dto.js';
export {
  WebhookUrlError,
  assertWebhookUrlAllowed,
  checkWebhookUrl,
  isLoopbackHost,
  privateWebhooksAllowed,
  privateAddressRule,
  type WebhookUrlErrorCode,
  type WebhookUrlPolicy,
} from './ssrf.js';
