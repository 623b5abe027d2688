// Tests GET /api/emails/{mailboxId}/{messageId}/html-check over HTTP against the real service
// (mail sent over SMTP) and the typed client's checkHtml: the report for a mail using flex,
// grid, border-radius and <video>, an unknown client, and a text-only mail. The expected
// support was read from src/checks/caniemail.json by hand (data of 2026-05-13).
import { expect, test } from '@playwright/test';
import { MailwrightApiError, MailwrightClient } from '../../src/client/index.js';
import { ADMIN_KEY, startTestService, type TestService } from './helpers/service.js';

const HOUR = 3_600_000;

const HTML = [
  '<div style="display:flex;border-radius:8px">',
  '<div style="display:grid">Grid</div>',
  '</div>',
  '<video src="https://example.test/clip.mp4" controls></video>',
].join('\n');

const DISPLAY_NOTES = ['Buggy. `display:none` does not inherit to inner tables.', 'Partial. Only supports `display:none` (but not on `<img>`).'];

/** What the data says for outlook.windows, gmail.desktop-webmail and apple-mail.macos (newest versions). */
const EXPECTED = {
  hasHtml: true,
  clients: ['apple-mail.macos', 'gmail.desktop-webmail', 'outlook.windows'],
  dataDate: '2026-05-13',
  issues: [
    {
      // outlook.windows 2019 "n"; gmail.desktop-webmail 2019-09 "n #2"; apple-mail.macos 12.4 "y".
      feature: 'html-video',
      title: '<video> element',
      url: 'https://www.caniemail.com/features/html-video/',
      category: 'html',
      clients: [
        { client: 'gmail.desktop-webmail', name: 'Gmail Desktop Webmail', support: 'no', notes: ['`<video>`, `<source>` and `<track>` tags are replaced by `<u></u>` tags.'] },
        { client: 'outlook.windows', name: 'Outlook Windows', support: 'no', notes: [] },
      ],
      where: ['line 4: <video src="https://example.test/clip.mp4" controls>'],
      count: 1,
    },
    {
      // outlook.windows 2019 "n #1"; the others "y".
      feature: 'css-border-radius',
      title: 'border-radius',
      url: 'https://www.caniemail.com/features/css-border-radius/',
      category: 'css',
      clients: [
        {
          client: 'outlook.windows', name: 'Outlook Windows', support: 'no',
          notes: ['Round corners can be used in VML with the `RoundRect` element. See [buttons.cm](https://buttons.cm/) and [VML documentation](https://docs.microsoft.com/en-us/windows/win32/vml/msdn-online-vml-roundrect-element).'],
        },
      ],
      where: ['line 1: <div style="display:flex;border-radius:8px">'],
      count: 1,
    },
    {
      // outlook.windows 2019 "n"; the others "y".
      feature: 'css-display-flex',
      title: 'display:flex',
      url: 'https://www.caniemail.com/features/css-display-flex/',
      category: 'css',
      clients: [{ client: 'outlook.windows', name: 'Outlook Windows', support: 'no', notes: [] }],
      where: ['line 1: <div style="display:flex;border-radius:8px">'],
      count: 1,
    },
    {
      // outlook.windows 2019 "n"; gmail.desktop-webmail "n" in 2019-02 but "y" in 2026-03.
      feature: 'css-display-grid',
      title: 'display:grid',
      url: 'https://www.caniemail.com/features/css-display-grid/',
      category: 'css',
      clients: [{ client: 'outlook.windows', name: 'Outlook Windows', support: 'no', notes: [] }],
      where: ['line 2: <div style="display:grid">'],
      count: 1,
    },
    {
      // outlook.windows 2019 "a #4 #5"; the others "y".
      feature: 'css-display',
      title: 'display',
      url: 'https://www.caniemail.com/features/css-display/',
      category: 'css',
      clients: [{ client: 'outlook.windows', name: 'Outlook Windows', support: 'partial', notes: DISPLAY_NOTES }],
      where: ['line 1: <div style="display:flex;border-radius:8px">', 'line 2: <div style="display:grid">'],
      count: 2,
    },
  ],
};

test.describe('HTML check API', () => {
  let svc: TestService;
  let mailbox: { id: string; email: string };
  let htmlMail: string;
  let textMail: string;

  test.beforeAll(async () => {
    svc = await startTestService();
    mailbox = (await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } })).body;
    await svc.send({ from: 'app@example.test', to: mailbox.email, subject: 'layout', text: 'Grid', html: HTML });
    await svc.send({ from: 'app@example.test', to: mailbox.email, subject: 'plain', text: 'only text' });
    const { messages } = (await svc.api('GET', `/api/emails/${mailbox.id}`)).body as { messages: Array<{ id: string; subject: string }> };
    htmlMail = messages.find((m) => m.subject === 'layout')!.id;
    textMail = messages.find((m) => m.subject === 'plain')!.id;
  });
  test.afterAll(async () => {
    await svc.close();
  });

  const path = (messageId: string, clients: string[]) =>
    `/api/emails/${mailbox.id}/${messageId}/html-check${clients.length ? `?${clients.map((c) => `client=${encodeURIComponent(c)}`).join('&')}` : ''}`;

  test('reports exactly what the data says for each client checked', async () => {
    const res = await svc.api('GET', path(htmlMail, ['outlook.windows', 'gmail.desktop-webmail', 'apple-mail.macos']));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(EXPECTED);
  });

  test('the typed client gets the same report; by address and with a glob too', async () => {
    await using client = new MailwrightClient({ baseURL: svc.httpUrl, apiKey: ADMIN_KEY });
    expect(await client.checkHtml(mailbox.id, htmlMail, { clients: ['outlook.windows', 'gmail.desktop-webmail', 'apple-mail.macos'] })).toEqual(EXPECTED);
    const outlooks = await client.checkHtml(mailbox.email, htmlMail, { clients: ['outlook.*'] });
    expect(outlooks.clients).toEqual(['outlook.android', 'outlook.ios', 'outlook.macos', 'outlook.outlook-com', 'outlook.windows', 'outlook.windows-mail']);
  });

  test('without client: the default clients', async () => {
    const res = await svc.api('GET', path(htmlMail, []));
    expect(res.status).toBe(200);
    expect(res.body.clients).toEqual([
      'apple-mail.ios', 'apple-mail.macos',
      'gmail.android', 'gmail.desktop-webmail', 'gmail.ios', 'gmail.mobile-webmail',
      'outlook.android', 'outlook.ios', 'outlook.macos', 'outlook.outlook-com', 'outlook.windows', 'outlook.windows-mail',
      'yahoo.android', 'yahoo.desktop-webmail', 'yahoo.ios',
    ]);
    expect(res.body.issues[0].feature).toBe('html-video');
  });

  test('an unknown client is a 400 invalid_request naming client, in the check\'s words', async () => {
    const res = await svc.api('GET', path(htmlMail, ['outlook.windows', 'outlok.windows']));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({ status: 400, code: 'invalid_request', field: 'client' });
    expect(res.body.detail).toContain('"outlok.windows" is not a mail client of the caniemail data');
    expect(res.body.detail).toContain('The clients are: aol.android,');

    await using client = new MailwrightClient({ baseURL: svc.httpUrl, apiKey: ADMIN_KEY });
    const error = await client.checkHtml(mailbox.id, htmlMail, { clients: ['hotmail.*'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailwrightApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', field: 'client' });
  });

  test('a text-only mail: hasHtml false, no issues', async () => {
    const res = await svc.api('GET', path(textMail, ['outlook.windows']));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ hasHtml: false, clients: ['outlook.windows'], dataDate: '2026-05-13', issues: [] });
  });

  test('an unknown message is a 404 message_not_found', async () => {
    const res = await svc.api('GET', path('msg_nope', []));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'message_not_found' });
  });
});
