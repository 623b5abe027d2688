// Owns the unauthenticated routes: the front page, health, the OpenAPI document and its /docs viewer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HealthResponse } from '../../../protocol/index.js';
import { VERSION } from '../../version.js';

export const systemRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: { tags: ['system'], summary: 'Liveness; needs no key', response: { 200: HealthResponse } },
  }, async () => ({ status: 'ok' as const, version: VERSION }));

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // A person who opens the service's address sees where things are, never a bare 404.
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const links = { docs: '/docs', openapi: '/openapi.json', health: '/health', api: '/api/emails' };
    if (!/text\/html/.test(request.headers.accept ?? '') && /json/.test(request.headers.accept ?? '')) {
      return reply.send({ name: 'mailwright', version: VERSION, links });
    }
    return reply.type('text/html; charset=utf-8').send(FRONT_PAGE);
  });
};

const FRONT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mailwright</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1f2937}code{background:#f3f4f6;padding:0 .25rem;border-radius:4px}</style>
</head><body>
<h1>mailwright ${VERSION}</h1>
<p>A disposable-mail service for end-to-end tests: mail sent to its SMTP port is kept in short-lived mailboxes and read over this HTTP API.</p>
<ul>
<li><a href="/docs">API documentation</a> (every call but <code>/health</code> needs an <code>X-API-Key</code> header)</li>
<li><a href="/openapi.json">OpenAPI document</a></li>
<li><a href="/health">Health</a></li>
</ul>
<p>In Playwright: <code>import { test, expect } from 'mailwright'</code>, then <code>await inbox.waitForVerificationLink()</code>.</p>
</body></html>
`;
