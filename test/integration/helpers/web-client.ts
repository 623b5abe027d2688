// A web UI client for tests that need what a browser hides: raw redirects and headers, a
// chosen local address (a second loopback address is another client), and forwarded headers.
import { connect } from 'node:net';
import { Agent, fetch, type Response } from 'undici';

export interface WebClientOptions {
  /** The local address to connect from (e.g. 127.0.0.2: Linux routes all of 127/8 to loopback). */
  localAddress?: string;
  /** Headers sent with every request (X-Forwarded-For, …). */
  headers?: Record<string, string>;
}

/** One browser-like client: its own cookie jar, redirects not followed. */
export class WebClient {
  readonly #cookies = new Map<string, string>();
  readonly #agent: Agent;

  constructor(readonly baseUrl: string, private readonly options: WebClientOptions = {}) {
    const { localAddress } = options;
    // undici's own connector does not pass localAddress on; a plain net.connect does.
    this.#agent = new Agent(localAddress ? {
      connect: (opts, callback) => {
        const socket = connect({ host: opts.hostname, port: Number(opts.port), localAddress });
        socket.once('connect', () => callback(null, socket)).once('error', (error) => callback(error, null));
      },
    } : {});
  }

  /** The `Set-Cookie` lines of the last response. */
  lastSetCookies: string[] = [];

  async request(method: string, path: string, body?: URLSearchParams, headers: Record<string, string> = {}): Promise<Response> {
    const cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(this.baseUrl + path, {
      method, body, redirect: 'manual', dispatcher: this.#agent,
      headers: { ...this.options.headers, ...headers, ...(cookie ? { cookie } : {}), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    this.lastSetCookies = res.headers.getSetCookie();
    for (const line of this.lastSetCookies) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at).trim(), pair!.slice(at + 1).trim()];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    return res;
  }

  /** GETs `path` and returns its body (a page). */
  async page(path: string): Promise<{ status: number; html: string }> {
    const res = await this.request('GET', path);
    return { status: res.status, html: await res.text() };
  }

  /** Posts a form the way a person does: the CSRF token read from the page `from` (default `/`). */
  async post(path: string, fields: Record<string, string>, from = '/'): Promise<Response> {
    const { html } = await this.page(from);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    if (!csrf) throw new Error(`no CSRF token on ${from}: ${html.slice(0, 300)}`);
    return this.request('POST', path, new URLSearchParams({ ...fields, _csrf: csrf }));
  }

  /** Signs in; resolves the response (303 on success). */
  signIn(email: string, password: string, next?: string): Promise<Response> {
    return this.post(`/sign-in${next === undefined ? '' : `?next=${next}`}`, { email, password });
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}
