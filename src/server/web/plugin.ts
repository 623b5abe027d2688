// Owns the web UI: server-rendered pages of the same fastify app (sign in, profile and API
// keys, mailboxes with live arrival, the message viewer, webhooks, admin). Everything here is
// encapsulated: cookies, sessions, CSRF, form bodies and rate limits apply to these pages
// only, never to /api. Pages work without JavaScript; /static/app.js only adds live updates
// and copy buttons.
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import session from '@fastify/session';
import fastifyStatic from '@fastify/static';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../api/problem.js';
import type { ServiceContext } from '../context.js';
import { randomToken } from '../ids.js';
import type { AccountRecord } from '../store/store.js';
import { VERSION } from '../version.js';
import { fmt } from './format.js';
import { adminPages } from './routes/admin.js';
import { allMailPages } from './routes/all-mail.js';
import { mailboxPages } from './routes/mailboxes.js';
import { messagePages } from './routes/messages.js';
import { profilePages } from './routes/profile.js';
import { refusedPages } from './routes/refused.js';
import { signInPages } from './routes/sign-in.js';
import { webhookPages } from './routes/webhooks.js';
import { SESSION_TTL_MS, StoreSessionStore } from './session-store.js';

/** Who may open a page: anyone, a signed-in account (the default), or an admin. */
type Access = 'public' | 'user' | 'admin';

declare module 'fastify' {
  interface Session {
    accountId?: string;
    /** Signed in through a one-time link: may set a password without the current one. */
    passwordReset?: boolean;
  }
  interface FastifyContextConfig {
    /** Web pages: who may open it (default: a signed-in account). */
    access?: Access;
  }
  interface FastifyRequest {
    /** The signed-in account on web pages; null when signed out. */
    user: AccountRecord | null;
  }
  interface FastifyReply {
    /** Renders a page (views/NAME.eta inside the layout) with the user, a CSRF token and the helpers. */
    page(name: string, data?: Record<string, unknown>): FastifyReply;
  }
}

const here = fileURLToPath(new URL('.', import.meta.url));
const VIEWS = `${here}views`;
const STATIC = `${here}static`;

/** A page-level failure shown as an HTML error page with this status. */
export class PageError extends Error {
  constructor(readonly status: number, readonly heading: string, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
    this.name = 'PageError';
  }
}

/** The 404 page for anything a signed-in account cannot see: another account's mailbox looks exactly like none. */
export function notFound(what: string): PageError {
  return new PageError(404, 'Not found', `There is no ${what} here. It may have expired, or it belongs to another account.`);
}

/** The app's own pages: scripts and styles from this origin only; mail HTML is never inline here. */
const APP_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

const eta = new Eta({ views: VIEWS, cache: true, autoEscape: true });

/** A whole page rendered outside a request of the web scope (the 404 page of unknown paths). */
export function renderErrorPage(status: number, heading: string, message: string): string {
  return eta.render('./error', { title: heading, heading, message, status, user: null, csrf: '', version: VERSION, fmt });
}

export async function webPlugin(app: FastifyInstance, { ctx }: { ctx: ServiceContext }): Promise<void> {
  const { store, clock } = ctx;
  // Kept in the store so sessions and form tokens survive a restart and work on every instance of a fleet.
  const sessionSecret = await store.ensureSetting('web.session_secret', randomToken(64));
  const cookieSecret = await store.ensureSetting('web.cookie_secret', randomToken(64));

  await app.register(cookie, { secret: cookieSecret });
  await app.register(session, {
    secret: sessionSecret,
    cookieName: 'mw_session',
    saveUninitialized: false,
    store: new StoreSessionStore(store, clock, app.log),
    cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto', path: '/', maxAge: SESSION_TTL_MS },
  });
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'mw_csrf',
    cookieOpts: { signed: true, httpOnly: true, sameSite: 'lax', path: '/' },
  });
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await app.register(rateLimit, { global: false });
  await app.register(fastifyStatic, { root: STATIC, prefix: '/static/', maxAge: '1h', decorateReply: false });
  await app.register(view, { engine: { eta }, templates: VIEWS, layout: undefined, production: true, defaultContext: { version: VERSION, fmt } });

  app.decorateRequest('user', null);
  app.decorateReply('page', function page(this: FastifyReply, name: string, data: Record<string, unknown> = {}) {
    const request = this.request;
    void this.header('content-security-policy', APP_CSP).header('cache-control', 'no-store');
    return this.view(name, { title: name, user: request.user, csrf: this.generateCsrf(), notice: null, error: null, ...data }) as unknown as FastifyReply;
  });

  // Who is signed in, and whether they may open this page.
  app.addHook('preHandler', async (request, reply) => {
    const accountId = request.session.accountId;
    if (accountId) {
      request.user = await store.getAccount(accountId);
      if (!request.user) await request.session.destroy();
    }
    // The stylesheet and script serve the sign-in page too.
    const access = request.routeOptions.url?.startsWith('/static/') ? 'public' : request.routeOptions.config.access ?? 'user';
    if (access === 'public') return;
    if (!request.user) {
      const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
      return reply.redirect(`/${next}`, 303);
    }
    if (access === 'admin' && !request.user.isAdmin) throw notFound('page');
  });
  // Every form post carries the CSRF token of the page it came from.
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'POST') return done();
    app.csrfProtection(request, reply, done);
  });
  // The last onSend hook, after the session's: what runs after it (the reply's head, written by
  // Node, which refuses some header values) runs in a promise fastify guards, so a throw there is
  // answered by the error handler below. Without it, it would surface in the session store's
  // callback, outside any request, as an unhandled rejection that ends the process.
  app.addHook('onSend', async () => undefined);

  app.setErrorHandler(async (error: FastifyError | PageError | ApiError, request, reply) => {
    // The error page is a reply of its own: nothing set for the one that failed (a Location, say) goes with it.
    for (const name of Object.keys(reply.getHeaders())) reply.removeHeader(name);
    let status: number;
    let heading: string;
    let message: string;
    if (error instanceof PageError) {
      ({ status, heading, message } = error);
      reply.headers(error.headers);
    } else if (error instanceof ApiError) {
      status = error.status;
      heading = 'That did not work';
      message = error.detail;
    } else if (typeof error.code === 'string' && error.code.startsWith('FST_CSRF')) {
      status = 403;
      heading = 'This form has expired';
      message = 'The form was not sent from a page of this service, or the page was open for too long. Go back, reload the page and send the form again.';
    } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      status = error.statusCode;
      heading = 'That did not work';
      message = error.message;
    } else {
      request.log.error({ err: error }, 'page failed');
      status = 500;
      heading = 'Something went wrong';
      message = 'The page could not be shown; the details are in the server log. Try again in a moment.';
    }
    return reply.code(status).page('error', { title: heading, heading, message });
  });

  await app.register(signInPages, { ctx });
  await app.register(profilePages, { ctx });
  await app.register(mailboxPages, { ctx });
  await app.register(messagePages, { ctx });
  await app.register(allMailPages, { ctx });
  await app.register(refusedPages, { ctx });
  await app.register(webhookPages, { ctx });
  await app.register(adminPages, { ctx });
}

/** Renders a template fragment (a table row for live updates) with the page helpers. */
export function renderFragment(name: string, data: Record<string, unknown>): string {
  return eta.render(`./${name}`, { ...data, fmt });
}

/** A form field as one string ('' when missing; the first value when repeated). */
export function field(request: FastifyRequest, name: string): string {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const value = body[name];
  return String((Array.isArray(value) ? value[0] : value) ?? '').trim();
}

/** A repeated form field (checkboxes) as a list. */
export function fields(request: FastifyRequest, name: string): string[] {
  const value = ((request.body ?? {}) as Record<string, unknown>)[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** The signed-in account (pages behind the access check only). */
export function userOf(request: FastifyRequest): AccountRecord {
  if (!request.user) throw new PageError(401, 'Signed out', 'Sign in to see this page.');
  return request.user;
}
