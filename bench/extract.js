// Extraction over the sample corpus (fixtures/emails): time per message and answers, for
// mailwright/extract beside the hand-written regexes a test author reaches for
// (`/https?:\S+/` for the link, `/\b\d{4,8}\b/` for the code), measured in the same run.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findCode, findVerificationLink } from '../dist/extract/index.js';
import { parseMessage } from '../dist/server/mime/parse.js';

const DIR = fileURLToPath(new URL('../fixtures/emails/', import.meta.url));
const ROUNDS = Number(process.env.BENCH_EXTRACT_ROUNDS ?? 20);

/** What a test author writes by hand: the first URL of the text (or HTML) part, the first 4–8 digit number. */
function byHand(m) {
  const body = m.text || m.html || '';
  const link = /https?:\S+/.exec(body)?.[0].replace(/["'<>)\].,]+$/, '');
  const code = /\b\d{4,8}\b/.exec(`${m.subject}\n${m.text || (m.html ?? '').replace(/<[^>]*>/g, ' ')}`)?.[0];
  return { link, code };
}

function mailwright(m) {
  return { link: findVerificationLink(m), code: findCode(m) };
}

function score(name, fn, mails, expected) {
  let right = 0;
  let wrong = 0;
  let missed = 0;
  for (const { file, msg } of mails) {
    const got = fn(msg);
    const want = expected[file];
    for (const [value, truth] of [[got.link, want.verificationLink], [got.code, want.code]]) {
      if ((value ?? null) === truth) right++;
      else if (value === undefined || value === null) missed++;
      else wrong++;
    }
  }
  // Fresh objects every round: nothing is reused between rounds.
  const times = [];
  for (let round = -2; round < ROUNDS; round++) {
    const copies = mails.map(({ msg }) => ({ ...msg }));
    const started = performance.now();
    for (const msg of copies) fn(msg);
    if (round >= 0) times.push((performance.now() - started) / copies.length);
  }
  times.sort((a, b) => a - b);
  return { name, right, wrong, missed, median: times[Math.floor(times.length / 2)] };
}

export async function extraction() {
  const expected = JSON.parse(readFileSync(`${DIR}expected.json`, 'utf8'));
  const mails = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.eml')).sort()) {
    const email = await parseMessage(readFileSync(`${DIR}${file}`));
    mails.push({ file, msg: { subject: email.subject, text: email.text, html: email.html } });
  }
  const rows = [score('mailwright/extract', mailwright, mails, expected), score('hand-written regexes', byHand, mails, expected)];
  const answers = mails.length * 2;
  console.log(`\nExtraction over the sample corpus: ${mails.length} emails, ${answers} answers (link + code each), median of ${ROUNDS} rounds`);
  console.log('extractor                  ms/message    right   wrong   missed');
  for (const r of rows) {
    console.log(`${r.name.padEnd(26)}${r.median.toFixed(3).padStart(10)}   ${String(r.right).padStart(6)}  ${String(r.wrong).padStart(6)}   ${String(r.missed).padStart(6)}`);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await extraction();
