// mailwright web UI: progressive enhancement only. Every form works without it; this adds
// copy buttons, expiry countdowns, relative times, live arrival of new mail (server-sent
// events), and the message viewer's preview widths and frame sized to the mail.
'use strict';

function copyText(button, text) {
  const done = () => { const label = button.textContent; button.textContent = 'Copied'; setTimeout(() => { button.textContent = label; }, 1500); };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, () => {});
  else {
    const area = document.createElement('textarea');
    area.value = text; document.body.append(area); area.select();
    try { document.execCommand('copy'); done(); } finally { area.remove(); }
  }
}

document.addEventListener('click', (event) => {
  const button = event.target.closest('[data-copy], [data-copy-text]');
  if (!button) return;
  const source = button.dataset.copy ? document.querySelector(button.dataset.copy) : null;
  copyText(button, button.dataset.copyText ?? (source ? source.textContent.trim() : ''));
});

function countdowns() {
  for (const el of document.querySelectorAll('time[data-countdown]')) {
    const left = Date.parse(el.dateTime) - Date.now();
    if (left <= 0) { el.textContent = 'expired'; continue; }
    const s = Math.floor(left / 1000), d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    el.textContent = 'in ' + (d ? d + ' d ' + h + ' h' : h ? h + ' h ' + m + ' min' : m ? m + ' min ' + (s % 60) + ' s' : (s % 60) + ' s');
    el.title = new Date(el.dateTime).toLocaleString();
  }
}
countdowns();
setInterval(countdowns, 1000);

// <time class="relative" datetime="ISO">absolute</time> reads "3 min ago", "yesterday", "in 2 h";
// the absolute time the server wrote stays in the title (and is what shows without this script).
function sameDay(a, b) { return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate(); }
function relativeText(at, now) {
  const diff = at.getTime() - now.getTime();
  const past = diff <= 0, s = Math.round(Math.abs(diff) / 1000), m = Math.floor(s / 60), h = Math.floor(s / 3600);
  const say = (text) => (past ? text + ' ago' : 'in ' + text);
  if (s < 45) return past ? 'just now' : 'in a few seconds';
  if (m < 60) return say(Math.max(1, m) + ' min');
  if (sameDay(at, now)) return say(h + ' h');
  const dayBefore = new Date(now); dayBefore.setDate(now.getDate() + (past ? -1 : 1));
  if (sameDay(at, dayBefore)) return past ? 'yesterday' : 'tomorrow';
  const startOf = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round(Math.abs(startOf(at) - startOf(now)) / 86400000);
  if (days < 7) return say(days + ' days');
  return at.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: at.getFullYear() === now.getFullYear() ? undefined : 'numeric' });
}
function relativeTimes(root) {
  const now = new Date();
  for (const el of (root || document).querySelectorAll('time.relative[datetime]')) {
    const at = new Date(el.dateTime);
    if (Number.isNaN(at.getTime())) continue;
    if (el.dataset.absolute === undefined) el.dataset.absolute = el.textContent.trim();
    el.textContent = relativeText(at, now);
    el.title = el.dataset.absolute + (el.dataset.absolute ? ' · ' : '') + at.toLocaleString();
  }
}
relativeTimes();
setInterval(relativeTimes, 30_000);

// The message viewer's HTML preview. The mail's frame has neither scripts nor an origin of its
// own, so nothing can read how tall it is; the page lays out a second copy of the same document
// out of sight (served sandboxed, without scripts, but same-origin: see mailCsp in
// routes/messages.ts), at the frame's width, and makes the frame that tall: the page scrolls,
// never a box inside it. Without this script the frame is most of the window tall.
function preview(frame) {
  const MAX_HEIGHT = 60000;
  const probe = document.createElement('iframe');
  probe.className = 'mail-probe';
  probe.setAttribute('sandbox', 'allow-same-origin');
  probe.setAttribute('aria-hidden', 'true');
  probe.setAttribute('scrolling', 'no');
  probe.tabIndex = -1;
  probe.title = 'Message HTML (measured)';
  probe.referrerPolicy = 'no-referrer';
  let loaded = false, width = -1;
  function fit() {
    if (!loaded) return;
    let doc = null;
    try { doc = probe.contentDocument; } catch { doc = null; }
    if (!doc || !doc.documentElement) return;
    probe.style.width = frame.clientWidth + 'px';
    const root = doc.documentElement;
    const height = Math.max(root.scrollHeight, doc.body ? doc.body.scrollHeight : 0);
    // A mail wider than the frame gets a horizontal scrollbar there: leave room for it.
    const scrollbar = root.scrollWidth > root.clientWidth ? 20 : 0;
    frame.style.height = Math.min(height + scrollbar, MAX_HEIGHT) + 'px';
    frame.classList.add('fitted');
  }
  probe.addEventListener('load', () => { loaded = true; fit(); });
  if ('ResizeObserver' in window) {
    new ResizeObserver(() => { if (frame.clientWidth !== width) { width = frame.clientWidth; fit(); } }).observe(frame);
  } else window.addEventListener('resize', fit);
  probe.src = frame.dataset.measure;
  frame.after(probe);

  const bar = document.querySelector('[data-widths]');
  if (!bar) return;
  bar.hidden = false;
  bar.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-width]');
    if (!button) return;
    for (const b of bar.querySelectorAll('button[data-width]')) b.setAttribute('aria-pressed', String(b === button));
    frame.dataset.width = button.dataset.width;
    // A reload, and the remote-images link, keep the width chosen.
    const keep = (href) => {
      const url = new URL(href, location.href);
      if (button.dataset.width === 'desktop') url.searchParams.delete('width');
      else url.searchParams.set('width', button.dataset.width);
      return url.pathname + url.search;
    };
    history.replaceState(history.state, '', keep(location.href));
    for (const a of document.querySelectorAll('a[data-keep-width]')) a.setAttribute('href', keep(a.getAttribute('href')));
  });
}
for (const frame of document.querySelectorAll('iframe.mail[data-measure]')) preview(frame);

const list = document.querySelector('[data-stream]');
if (list && 'EventSource' in window) {
  const status = document.getElementById('live-status');
  const count = document.getElementById('count');
  const source = new EventSource(list.dataset.stream);
  source.addEventListener('open', () => { if (status) status.textContent = 'Live: new mail appears here as it arrives.'; });
  source.addEventListener('error', () => { if (status) status.textContent = 'Reconnecting…'; });
  source.addEventListener('message', (event) => {
    const { seq, html } = JSON.parse(event.data);
    if (list.querySelector(`tr[data-seq="${seq}"]`)) return;
    list.querySelector('tr.empty')?.remove();
    const row = document.createElement('tbody');
    row.innerHTML = html;
    const tr = row.firstElementChild;
    tr.classList.add('fresh');
    list.prepend(tr);
    relativeTimes(tr);
    if (count) count.textContent = String(Number(count.textContent) + 1);
  });
}
