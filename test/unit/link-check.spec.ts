// Unit tests of the link check's core: which URLs of a mail are checked (links, images,
// srcset, text URLs; other schemes and relative URLs left out; duplicates once) and how each
// is asked through a fake fetcher (HEAD, GET where HEAD is refused, failures, concurrency, order).
import { test, expect } from '@playwright/test';
import { checkLinks, LinkFetchError, linksToCheck, type LinkFetcher } from '../../src/checks/link-check.js';

/** A fetcher answering from `answers` (by URL and method, or by URL): a status, or an Error to reject with. Records every call. */
function fakeFetcher(answers: Record<string, number | Error>, delayMs = 0) {
  const calls: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const fetch: LinkFetcher = async (url, method) => {
    calls.push(`${method} ${url}`);
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    try {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const answer = answers[`${method} ${url}`] ?? answers[url] ?? 200;
      if (answer instanceof Error) throw answer;
      return { status: answer, url };
    } finally {
      inFlight--;
    }
  };
  return { fetch, calls, mostInFlight: () => mostInFlight };
}

test.describe('linksToCheck', () => {
  test('finds anchors, images, srcset, background and style url() in document order', () => {
    const html = `
      <body background="https://cdn.example.com/bg.png">
        <a href="https://example.com/a">A</a>
        <img src="https://cdn.example.com/logo.png" srcset="https://cdn.example.com/logo@2x.png 2x, https://cdn.example.com/logo,3x.png 3x">
        <picture><source srcset="https://cdn.example.com/wide.webp 800w,https://cdn.example.com/narrow.webp 400w"></picture>
        <map><area href="https://example.com/area"></map>
        <table><tr><td style="background-image: url('https://cdn.example.com/cell.png')">x</td></tr></table>
        <div style="display:none"><a href="https://example.com/hidden">hidden</a></div>
      </body>`;
    expect(linksToCheck({ html })).toEqual([
      { url: 'https://cdn.example.com/bg.png', request: 'https://cdn.example.com/bg.png', places: ['html-image'] },
      { url: 'https://example.com/a', request: 'https://example.com/a', places: ['html-link'] },
      { url: 'https://cdn.example.com/logo.png', request: 'https://cdn.example.com/logo.png', places: ['html-image'] },
      { url: 'https://cdn.example.com/logo@2x.png', request: 'https://cdn.example.com/logo@2x.png', places: ['html-image'] },
      { url: 'https://cdn.example.com/logo,3x.png', request: 'https://cdn.example.com/logo,3x.png', places: ['html-image'] },
      { url: 'https://cdn.example.com/wide.webp', request: 'https://cdn.example.com/wide.webp', places: ['html-image'] },
      { url: 'https://cdn.example.com/narrow.webp', request: 'https://cdn.example.com/narrow.webp', places: ['html-image'] },
      { url: 'https://example.com/area', request: 'https://example.com/area', places: ['html-link'] },
      { url: 'https://cdn.example.com/cell.png', request: 'https://cdn.example.com/cell.png', places: ['html-image'] },
      { url: 'https://example.com/hidden', request: 'https://example.com/hidden', places: ['html-link'] },
    ]);
  });

  test('finds http(s) URLs of the text part, after the HTML part', () => {
    const text = 'Confirm: https://example.com/confirm?t=abc.\nHelp at (https://example.com/help) or http://example.org/faq';
    expect(linksToCheck({ html: '<a href="https://example.com/home">Home</a>', text }).map((l) => [l.url, l.places])).toEqual([
      ['https://example.com/home', ['html-link']],
      ['https://example.com/confirm?t=abc', ['text']],
      ['https://example.com/help', ['text']],
      ['http://example.org/faq', ['text']],
    ]);
  });

  test('skips mailto:, tel: and other schemes, fragments and javascript:', () => {
    const html = `<a href="mailto:help@example.com">mail</a><a href="tel:+15551234">call</a><a href="sms:123">sms</a>
      <a href="#top">top</a><a href="javascript:void(0)">js</a><img src="cid:logo@mail"><img src="data:image/png;base64,AAAA">
      <a href="ftp://example.com/file">ftp</a><a href="https://example.com/ok">ok</a>`;
    expect(linksToCheck({ html, text: 'Write to mailto:help@example.com or call tel:+15551234' }).map((l) => l.url)).toEqual(['https://example.com/ok']);
  });

  test('checks a URL once, with every place it appears in, as it first appears', () => {
    const html = `<a href=" https://example.com/x?a=1&amp;b=2#top ">x</a>
      <a href="https://example.com/x?a=1&b=2#bottom"><img src="https://example.com/x?a=1&amp;b=2"></a>`;
    expect(linksToCheck({ html, text: 'Open https://example.com/x?a=1&b=2 now' })).toEqual([
      { url: 'https://example.com/x?a=1&b=2#top', request: 'https://example.com/x?a=1&b=2', places: ['html-link', 'html-image', 'text'] },
    ]);
  });

  test('skips relative URLs when there is no base, resolves them against <base href>', () => {
    const html = '<a href="/account">a</a><img src="img/logo.png"><a href="//cdn.example.com/x">x</a>';
    expect(linksToCheck({ html }).map((l) => l.url)).toEqual(['https://cdn.example.com/x']);
    const based = `<head><base href="https://app.example.com/mail/"></head>${html}`;
    expect(linksToCheck({ html: based }).map((l) => l.url)).toEqual([
      'https://app.example.com/account',
      'https://app.example.com/mail/img/logo.png',
      'https://cdn.example.com/x',
    ]);
  });

  test('an empty mail has nothing to check', () => {
    expect(linksToCheck({})).toEqual([]);
    expect(linksToCheck({ html: null, text: '  ' })).toEqual([]);
  });
});

test.describe('checkLinks', () => {
  test('skip leaves out the links that contain a string or match a RegExp: not fetched, not reported', async () => {
    const asked: string[] = [];
    const fetch: LinkFetcher = async (url) => (asked.push(url), { status: 200, url });
    const text = 'Verify: https://app.test/verify?token=1 · Help: https://app.test/help · Magic: https://app.test/magic/cb?t=2';
    const results = await checkLinks({ text }, fetch, { skip: ['/verify?', /\/magic\//g] });
    expect(results.map((r) => r.url)).toEqual(['https://app.test/help']);
    expect(asked).toEqual(['https://app.test/help']);
  });

  const A = 'https://example.com/a';
  const B = 'https://example.com/b';
  const C = 'https://example.com/c';

  test('asks HEAD, and GET where HEAD answers 405 or 501', async () => {
    const fake = fakeFetcher({ [`HEAD ${B}`]: 405, [`HEAD ${C}`]: 501, [`GET ${C}`]: 404 });
    const results = await checkLinks({ text: `${A} ${B} ${C}` }, fake.fetch);
    expect(fake.calls.sort()).toEqual([`GET ${B}`, `GET ${C}`, `HEAD ${A}`, `HEAD ${B}`, `HEAD ${C}`]);
    expect(results).toEqual([
      { url: A, status: 200, ok: true, method: 'HEAD', places: ['text'] },
      { url: B, status: 200, ok: true, method: 'GET', places: ['text'] },
      { url: C, status: 404, ok: false, method: 'GET', places: ['text'], error: `${C}: GET 404 Not Found (HEAD answered 501)` },
    ]);
  });

  test('a failed request is a result with ok false and an error naming the URL and what happened', async () => {
    const fake = fakeFetcher({
      [A]: new LinkFetchError('MW_ERR_LINK_NETWORK', 'connection refused'),
      [B]: new LinkFetchError('MW_ERR_LINK_TIMEOUT', 'no answer within 250 ms'),
      [C]: 500,
    });
    const results = await checkLinks({ text: `${A} ${B} ${C}` }, fake.fetch, { timeout: 250 });
    expect(results.map(({ url, status, ok, error }) => ({ url, status, ok, error }))).toEqual([
      { url: A, status: null, ok: false, error: `${A}: HEAD failed: connection refused` },
      { url: B, status: null, ok: false, error: `${B}: no answer to HEAD within 250 ms; the server is down or slow — if only slow, raise the \`timeout\` option` },
      { url: C, status: 500, ok: false, error: `${C}: HEAD 500 Internal Server Error` },
    ]);
  });

  test('reports where redirects ended', async () => {
    const fetch: LinkFetcher = async (url) => ({ status: url === A ? 404 : 200, url: url === A ? `${A}/moved` : url });
    expect(await checkLinks({ text: `${A} ${B}` }, fetch)).toEqual([
      { url: A, status: 404, ok: false, method: 'HEAD', places: ['text'], finalUrl: `${A}/moved`, error: `${A}: HEAD 404 Not Found at ${A}/moved` },
      { url: B, status: 200, ok: true, method: 'HEAD', places: ['text'] },
    ]);
  });

  test('never has more requests in flight than the concurrency, and keeps the order of the mail', async () => {
    const urls = Array.from({ length: 17 }, (_, i) => `https://example.com/${i}`);
    // Later links answer sooner, so completion order is not mail order.
    const delays = new Map(urls.map((url, i) => [url, 20 - i]));
    let inFlight = 0;
    let mostInFlight = 0;
    const fetch: LinkFetcher = async (url) => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, delays.get(url)));
      inFlight--;
      return { status: 200, url };
    };
    const results = await checkLinks({ text: urls.join('\n') }, fetch, { concurrency: 4 });
    expect(mostInFlight).toBe(4);
    expect(results.map((r) => r.url)).toEqual(urls);

    const fake = fakeFetcher({}, 5);
    await checkLinks({ text: urls.join('\n') }, fake.fetch);
    expect(fake.mostInFlight()).toBe(6);
  });

  test('stops waiting for a fetcher that outlives its own timeout', async () => {
    const never: LinkFetcher = () => new Promise(() => {});
    const [result] = await checkLinks({ text: A }, never, { timeout: 50 });
    expect(result).toMatchObject({ url: A, status: null, ok: false, error: expect.stringContaining('no answer to HEAD within 50 ms') });
  });
});
