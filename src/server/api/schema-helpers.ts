// Owns small schema helpers for route declarations (error responses in OpenAPI). The codes
// each status can carry come from the protocol's API_ERRORS table, never a second list.
import { Type } from 'typebox';
import { API_ERRORS, Problem, type ApiErrorCode } from '../../protocol/index.js';

/** What the description of a status adds to its list of codes. */
const NOTES: Partial<Record<number, string>> = {
  404: "another account's resources are 404 too",
  429: 'Retry-After: seconds to the monthly reset',
};

/** The problem document of one status: `code` narrowed to the codes API_ERRORS gives that status. */
function problemWithStatus(status: number) {
  const codes = (Object.keys(API_ERRORS) as ApiErrorCode[]).filter((code) => API_ERRORS[code].status === status);
  if (codes.length === 0) throw new Error(`errorResponses(${status}): no code in API_ERRORS answers ${status}; add one there first`);
  const listed = new Intl.ListFormat('en', { type: 'disjunction' }).format(codes);
  const note = NOTES[status];
  return Type.Object(
    { ...Problem.properties, code: Type.Enum(codes) },
    { title: 'Problem', description: note ? `${listed} (${note})` : listed },
  );
}

/** Problem-document responses for the given statuses, for a route's `response` schema. */
export function errorResponses(...statuses: number[]): Record<number, ReturnType<typeof problemWithStatus>> {
  return Object.fromEntries(statuses.map((status) => [status, problemWithStatus(status)]));
}
