// Owns the catalogue of machine error codes: one table shared by the server (problem+json),
// the client (MailwrightApiError) and the OpenAPI document.
import { Type } from 'typebox';

/** Every `code` the HTTP API can answer with, mapped to its HTTP status and a short title. */
export const API_ERRORS = {
  missing_api_key: { status: 401, title: 'Missing API key' },
  invalid_api_key: { status: 401, title: 'Invalid API key' },
  scope_denied: { status: 403, title: 'Scope denied' },
  quota_exhausted: { status: 429, title: 'Quota exhausted' },
  invalid_request: { status: 400, title: 'Invalid request' },
  unknown_domain: { status: 400, title: 'Unknown domain' },
  address_taken: { status: 409, title: 'Address taken' },
  mailbox_limit: { status: 403, title: 'Mailbox limit reached' },
  mailbox_not_found: { status: 404, title: 'Mailbox not found' },
  message_not_found: { status: 404, title: 'Message not found' },
  webhook_not_found: { status: 404, title: 'Webhook not found' },
  redeem_code_invalid: { status: 400, title: 'Redeem code invalid' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  uri_too_long: { status: 414, title: 'URI too long' },
  internal_error: { status: 500, title: 'Internal error' },
} as const satisfies Record<string, { status: number; title: string }>;

/** A stable, machine-readable error code of the HTTP API. */
export type ApiErrorCode = keyof typeof API_ERRORS;

/** Schema of {@link ApiErrorCode}: one of the codes of {@link API_ERRORS}. */
export const ApiErrorCode = Type.Enum(Object.keys(API_ERRORS) as ApiErrorCode[], {
  description: 'Stable machine code; see API_ERRORS.',
});

/** The `type` URI of a problem document for `code`. */
export function problemType(code: ApiErrorCode): string {
  return `https://mailwright.dev/errors/${code}`;
}

/** True when `value` is one of the API's error codes. */
export function isApiErrorCode(value: unknown): value is ApiErrorCode {
  return typeof value === 'string' && Object.hasOwn(API_ERRORS, value);
}
