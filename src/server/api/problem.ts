// Owns API errors: the ApiError class routes throw, the problem+json error handler that turns
// it, validation failures and framework errors into `{ type, title, status, detail, code }`, and
// draining the unread body of a request answered early, so its client reads the answer.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_ERRORS, problemType, type ApiErrorCode, type Problem } from '../../protocol/index.js';

/** An error with a stable API `code`; the handler renders it as problem+json. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ApiErrorCode,
    readonly detail: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ApiError';
    this.status = API_ERRORS[code].status;
  }
}

function problemOf(code: ApiErrorCode, detail: string, field?: string): Problem {
  const { status, title } = API_ERRORS[code];
  return { type: problemType(code), title, status, detail, code, ...(field ? { field } : {}) };
}

/** The field a validation error is about, as the client named it (`expiryTime`, `limit`, …). */
function fieldOf(error: FastifyError): string | undefined {
  const first = error.validation?.[0] as { instancePath?: string; params?: { missingProperty?: string; additionalProperty?: string } } | undefined;
  if (!first) return undefined;
  const path = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const extra = first.params?.missingProperty ?? first.params?.additionalProperty;
  return [path, extra].filter(Boolean).join('.') || undefined;
}

/** The longest path segment the router takes (fastify's `maxParamLength` default). */
const MAX_SEGMENT = 100;

/** problem+json for errors fastify raises before a route runs (its `frameworkErrors` option). */
export function frameworkProblem(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const problem = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? problemOf('uri_too_long', `a path segment is longer than the ${MAX_SEGMENT} characters allowed; ids and addresses are shorter — check the URL`)
    : problemOf('invalid_request', `the request URL ${JSON.stringify(request.url.slice(0, 200))} cannot be read (${error.message}); percent-encode it and send it again`);
  void reply.code(problem.status).type('application/problem+json').send(problem);
}

/** Whether a request is a person's browser asking for a page (not an API call). */
function wantsPage(request: FastifyRequest): boolean {
  return !request.url.startsWith('/api/') && /text\/html/.test(request.headers.accept ?? '');
}

export function installErrorHandling(app: FastifyInstance, pages: { notFoundPage?: (path: string) => string } = {}): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    let problem: Problem;
    if (error instanceof ApiError) {
      problem = problemOf(error.code, error.detail, error.field);
      reply.headers(error.headers);
    } else if (error.validation) {
      const field = fieldOf(error);
      const where = error.validationContext ?? 'request';
      problem = problemOf('invalid_request', `${where} is invalid: ${field ?? ''} ${error.validation[0]?.message ?? error.message}`.replace(/\s+/g, ' ').trim(), field);
    } else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      problem = problemOf('payload_too_large', `the request body is larger than the ${app.initialConfig.bodyLimit} bytes allowed; send a smaller body`);
    } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      problem = problemOf('invalid_request', `${error.message}; see /docs for the expected request`);
    } else {
      request.log.error({ err: error }, 'request failed');
      problem = problemOf('internal_error', 'the server failed to answer; the details are in its log');
    }
    return reply.code(problem.status).type('application/problem+json').send(problem);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    if (pages.notFoundPage && wantsPage(request)) return reply.code(404).type('text/html; charset=utf-8').send(pages.notFoundPage(path));
    const problem = problemOf('not_found', `no route ${request.method} ${request.url.split('?')[0]}; see /docs for the API`);
    return reply.code(404).type('application/problem+json').send(problem);
  });
}

/** The most of an unread request body read and thrown away before an answer is sent (bytes). */
const UNREAD_BODY_DRAINED = 8 * 1024 * 1024;
/** The longest an unread request body is waited for before the answer is sent anyway (ms). */
const UNREAD_BODY_WAIT_MS = 5_000;

/**
 * Answers given before the request's body was read (a 413 for a body over the limit, a 401 before
 * parsing) wait until the rest of that body has come and been thrown away, up to
 * {@link UNREAD_BODY_DRAINED} bytes, and close the connection. A client that sends its body without
 * `Expect: 100-continue` (Python's urllib, most plain clients) then reads the answer instead of a
 * connection reset: closing a socket with unread bytes makes the kernel reset it.
 */
export function drainUnreadBodies(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    if (raw.complete || raw.readableEnded || raw.destroyed) return done(null, payload);
    void reply.header('connection', 'close');
    const length = Number(raw.headers['content-length'] ?? 0);
    if (length > UNREAD_BODY_DRAINED) return done(null, payload);
    let read = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', finish).off('error', finish).off('close', finish);
      done(null, payload);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > UNREAD_BODY_DRAINED) finish();
    };
    const timer = setTimeout(finish, UNREAD_BODY_WAIT_MS);
    raw.on('data', onData).on('end', finish).on('error', finish).on('close', finish);
    raw.resume();
  });
}
