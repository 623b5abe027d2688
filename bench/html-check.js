// Times the HTML check (checkHtml, caniemail data) on a ~100 KB newsletter built here the way
// email builders write one: nested layout tables, inline styles on every cell, a <style> block
// with resets, media queries and dark mode, images, buttons and a conditional comment for
// Outlook. Prints the first call (it reads the data and loads css-tree) apart, then p50 and p95
// of 50 runs against the budget; exits 1 over budget.
//
//   npm run build && node bench/html-check.js
//   BENCH_HTML_CHECK_MODULE=/path/to/html-check.js node bench/html-check.js   (another build)
const RUNS = Number(process.env.BENCH_HTML_CHECK_RUNS ?? 50);
/** ms for one check of a 100 KB mail with the default clients, at p95. */
const BUDGET_MS = 50;
const TARGET_BYTES = 100_000;

const modulePath = process.env.BENCH_HTML_CHECK_MODULE ?? new URL('../dist/checks/html-check.js', import.meta.url).href;
const { checkHtml } = await import(modulePath.startsWith('/') ? `file://${modulePath}` : modulePath);

const STYLE = `
  body, table, td, a { -webkit-text-size-adjust: 100%; -ms-text-size-adjust: 100%; }
  table, td { mso-table-lspace: 0pt; mso-table-rspace: 0pt; border-collapse: collapse; }
  img { -ms-interpolation-mode: bicubic; border: 0; height: auto; line-height: 100%; outline: none; text-decoration: none; }
  /* Links the client turns blue */
  a[x-apple-data-detectors] { color: inherit !important; text-decoration: none !important; }
  .wrapper { width: 100%; max-width: 640px; margin: 0 auto; }
  .btn a:hover { background-color: #0b5ed7 !important; }
  .product td.price { font-weight: 700; color: #111111; }
  .product + .product { border-top: 1px solid #e5e5e5; }
  @media screen and (max-width: 600px) {
    .wrapper { width: 100% !important; }
    .stack { display: block !important; width: 100% !important; }
    .hide-mobile { display: none !important; max-height: 0; overflow: hidden; }
    .pad { padding: 12px 16px !important; }
    h1 { font-size: 24px !important; line-height: 30px !important; }
  }
  @media (prefers-color-scheme: dark) {
    body, .bg { background-color: #121212 !important; }
    .text { color: #eeeeee !important; }
    .card { background-color: #1e1e1e !important; border-color: #333333 !important; }
  }
`;

function header() {
  return `<!DOCTYPE html>
<html lang="en" xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="supported-color-schemes" content="light dark">
<title>Spring sale</title>
<!--[if mso]><xml><o:OfficeDocumentSettings><o:PixelsPerInch>96</o:PixelsPerInch></o:OfficeDocumentSettings></xml><![endif]-->
<style>${STYLE}</style>
</head>
<body class="bg" style="margin:0;padding:0;background-color:#f4f4f4;">
<div style="display:none;max-height:0;overflow:hidden;mso-hide:all;">Up to 40% off this week only &#8199;&#65279;&#847;</div>
<center style="width:100%;background-color:#f4f4f4;">
<table role="presentation" class="wrapper" width="640" cellpadding="0" cellspacing="0" border="0" align="center" style="width:640px;max-width:640px;margin:0 auto;background-color:#ffffff;">
<tr><td class="pad" style="padding:24px 32px;font-family:Helvetica,Arial,sans-serif;">
<h1 class="text" style="margin:0 0 12px;font-size:32px;line-height:40px;color:#111111;font-weight:700;">Spring sale</h1>
<p class="text" style="margin:0;font-size:16px;line-height:24px;color:#444444;">Hand-picked for you, with free delivery on orders over $50.</p>
</td></tr>
`;
}

function product(i) {
  const shade = (i * 37) % 256;
  return `<tr class="product"><td style="padding:16px 32px;border-bottom:1px solid #eeeeee;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" class="card" style="border-radius:8px;background-color:#fafafa;">
<tr>
<td class="stack" width="160" valign="top" style="width:160px;padding:8px;">
<a href="https://shop.example.test/p/${i}?utm_source=newsletter&amp;utm_medium=email" target="_blank"><img src="https://cdn.example.test/products/${i}.jpg" srcset="https://cdn.example.test/products/${i}@2x.jpg 2x" width="144" height="144" alt="Product ${i}" style="display:block;width:144px;height:auto;border-radius:4px;"></a>
</td>
<td class="stack text" valign="top" style="padding:8px 8px 8px 16px;font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:22px;color:#333333;">
<h2 style="margin:0 0 4px;font-size:18px;line-height:24px;color:#111111;">Product number ${i}</h2>
<p style="margin:0 0 8px;color:rgb(${shade}, 80, 80);">Made from recycled materials, in ${(i % 5) + 2} colours. Ships within ${(i % 3) + 1} days.</p>
<table role="presentation" cellpadding="0" cellspacing="0" border="0"><tr>
<td class="price" style="padding:0 12px 0 0;font-size:16px;">$${(19 + i * 3) % 120}.99</td>
<td class="btn" bgcolor="#0d6efd" style="border-radius:4px;background-color:#0d6efd;"><a href="https://shop.example.test/cart/add/${i}" style="display:inline-block;padding:8px 16px;font-size:14px;color:#ffffff;text-decoration:none;font-weight:600;">Add to cart</a></td>
</tr></table>
</td>
</tr>
</table>
</td></tr>
`;
}

function footer() {
  return `<tr><td style="padding:24px 32px;font-family:Helvetica,Arial,sans-serif;font-size:12px;line-height:18px;color:#888888;text-align:center;">
<p style="margin:0 0 8px;">You get this mail because you signed up at shop.example.test. <a href="https://shop.example.test/unsubscribe" style="color:#888888;text-decoration:underline;">Unsubscribe</a></p>
<p style="margin:0;">Example Shop, 1 Main Street, Springfield</p>
</td></tr>
</table>
</center>
</body>
</html>
`;
}

function newsletter() {
  let html = header();
  for (let i = 1; html.length < TARGET_BYTES - 1000; i++) html += product(i);
  return html + footer();
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const html = newsletter();
let start = performance.now();
const report = checkHtml(html);
const first = performance.now() - start;
const times = [];
for (let run = 0; run < RUNS; run++) {
  start = performance.now();
  checkHtml(html);
  times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
const p50 = percentile(times, 50);
const p95 = percentile(times, 95);
console.log(`html-check: ${(html.length / 1000).toFixed(0)} KB mail, ${html.split('\n').length} lines, ${report.clients.length} clients, ${report.issues.length} issues (caniemail data of ${report.dataDate})`);
console.log(`  first call ${first.toFixed(1)} ms (reads the data, loads css-tree)`);
console.log(`  ${RUNS} runs: p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms; budget p95 <= ${BUDGET_MS} ms: ${p95 <= BUDGET_MS ? 'ok' : 'OVER'}`);
if (p95 > BUDGET_MS) process.exitCode = 1;
