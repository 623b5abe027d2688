// mailwright web UI: progressive enhancement only. Every form works without it; this adds
// copy buttons, expiry countdowns and live arrival of new mail (server-sent events).
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
    if (count) count.textContent = String(Number(count.textContent) + 1);
  });
}
