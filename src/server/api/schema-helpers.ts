// Owns small schema helpers for route declarations (error responses in OpenAPI).
import { Problem } from '../../protocol/index.js';

const DESCRIPTIONS: Record<number, string> = {
  400: 'invalid_request, unknown_domain or redeem_code_invalid',
  401: 'missing_api_key or invalid_api_key',
  403: 'scope_denied or mailbox_limit',
  404: 'mailbox_not_found, message_not_found or webhook_not_found (another account\'s resources are 404 too)',
  409: 'address_taken',
  413: 'payload_too_large',
  429: 'quota_exhausted (Retry-After: seconds to the monthly reset)',
};

/** Problem-document responses for the given statuses, for a route's `response` schema. */
export function errorResponses(...statuses: number[]): Record<number, typeof Problem> {
  const out: Record<number, typeof Problem> = {};
  for (const status of statuses) out[status] = { ...Problem, description: DESCRIPTIONS[status] ?? 'error' } as typeof Problem;
  return out;
}
