// Owns `/mcp`: the tools of `mailwright mcp` over Streamable HTTP, so an agent can use a shared
// service with nothing installed. Stateless: each POST gets its own MCP server and transport.
// The key comes in X-API-Key or `Authorization: Bearer` (401 without) and needs scope `emails`;
// each tool call counts one API call. The tools call this service's own API over loopback as
// the caller, marked internal so those calls are not counted again.
import type { AddressInfo } from 'node:net';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Agent, type Dispatcher } from 'undici';
import { MailwrightClient } from '../../../client/index.js';
import { API_KEY_HEADER } from '../../../protocol/index.js';
import type { ServiceContext } from '../../context.js';
import { authenticate, countCall, headerValue, type InternalCalls } from '../auth.js';
import { ApiError } from '../problem.js';

/** The API key of a `/mcp` request: X-API-Key, else the token of `Authorization: Bearer`. */
function keyOf(request: FastifyRequest): string | undefined {
  const header = headerValue(request.headers[API_KEY_HEADER]);
  if (header) return header;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headerValue(request.headers.authorization) ?? '');
  return bearer?.[1];
}

/** This service's own API as a loopback URL: where it listens, the unspecified address made loopback. */
function selfUrl(address: AddressInfo): string {
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/** Adds the internal-call header to every request sent through `dispatcher`. */
function marking(dispatcher: Dispatcher, internal: InternalCalls): Dispatcher {
  return dispatcher.compose((dispatch) => (options, handler) => dispatch({ ...options, headers: { ...(options.headers as Record<string, string>), ...internal.headers } }, handler));
}

/** The MCP server and its HTTP transport, loaded on the first request: a service nobody asks over MCP does not carry the SDK. */
let mcp: Promise<[typeof import('../../../mcp/server.js'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]> | undefined;
function loadMcp() {
  mcp ??= Promise.all([import('../../../mcp/server.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]);
  return mcp;
}

export const mcpRoutes: FastifyPluginAsync<{ ctx: ServiceContext; internal: InternalCalls }> = async (app, { ctx, internal }) => {
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const dispatcher = marking(agent, internal);
  // Waits in progress end when the service stops, so they do not hold its shutdown.
  const stopping = new AbortController();
  const onShutdown = () => stopping.abort();
  ctx.bus.on('shutdown', onShutdown);
  app.addHook('onClose', async () => {
    ctx.bus.off('shutdown', onShutdown);
    await agent.close();
  });

  app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    let auth;
    try {
      auth = await authenticate(ctx, keyOf(request), 'emails', 'POST /mcp');
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        throw new ApiError(error.code, `${error.detail} (or as Authorization: Bearer <key>)`, undefined, { 'www-authenticate': 'Bearer realm="mailwright"' });
      }
      throw error;
    }
    const caller = auth;
    const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await loadMcp();
    const client = new MailwrightClient({ baseURL: selfUrl(request.server.server.address() as AddressInfo), apiKey: keyOf(request)!, dispatcher, timeout: 15_000 });
    const host = request.hostname.includes(':') && !request.hostname.startsWith('[') ? `[${request.hostname}]` : request.hostname;
    const smtpUrl = ctx.smtpPort === undefined ? null : `smtp://${host}:${ctx.smtpPort}`;
    const server = createMcpServer(client, { smtpUrl, signal: stopping.signal, beforeCall: async () => void (await countCall(ctx, caller)) });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    reply.hijack();
    reply.raw.once('close', () => {
      void transport.close();
      void server.close();
      void client.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });

  // Stateless: no stream of server-initiated messages to open, no session to end.
  const postOnly = async () => {
    throw new ApiError('method_not_allowed', 'this MCP endpoint is stateless and answers POST only (Streamable HTTP without sessions); send JSON-RPC messages with POST /mcp', undefined, { allow: 'POST' });
  };
  app.get('/mcp', { schema: { hide: true } }, postOnly);
  app.delete('/mcp', { schema: { hide: true } }, postOnly);
};
