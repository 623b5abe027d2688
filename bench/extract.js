// Extraction over the sample corpus (fixtures/emails): precision and recall for each part of the
// corpus, and time per message, for mailwright/extract beside the hand-written regexes a test author
// reaches for (`/https?:\S+/` for the link, `/\b\d{4,8}\b/` for the code), measured in the same run.
//
// The corpus has three parts (see fixtures/emails/README.md):
//   samples  fixtures/emails/*.eml        hand-written classes of mail; the rules are tuned on it
//   study    fixtures/emails/study/       framework default mails; the rules are tuned on it
//   check    fixtures/emails/check/       framework default mails written before the rules changed and
//                                         never read while they change: its numbers are the honest ones
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findCode, findVerificationLink } from '../dist/extract/index.js';
import { parseMessage } from '../dist/server/mime/parse.js';

const ROOT = fileURLToPath(new URL('../fixtures/emails/', import.meta.url));
const ROUNDS = Number(process.env.BENCH_EXTRACT_ROUNDS ?? 20);
/** The corpus parts, in the order they are printed. */
export const PARTS = [
  { name: 'samples', dir: ROOT, tuned: true },
  { name: 'study', dir: `${ROOT}study/`, tuned: true },
  { name: 'check', dir: `${ROOT}check/`, tuned: false },
];

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

/**
 * Counts answers against expectations. An expected answer found is right; a different answer is
 * wrong (an answer where none is expected is wrong too); no answer where one is expected is missed.
 * Precision = right / answers given; recall = right / answers expected.
 */
export function tally(fn, mails, expected) {
  const t = { expected: 0, right: 0, wrong: 0, missed: 0 };
  for (const { file, msg } of mails) {
    const got = fn(msg);
    const want = expected[file];
    for (const [value, truth] of [[got.link ?? null, want.verificationLink], [got.code ?? null, want.code]]) {
      if (truth !== null) t.expected++;
      if (value === null) { if (truth !== null) t.missed++; }
      else if (value === truth) t.right++;
      else t.wrong++;
    }
  }
  const answered = t.right + t.wrong;
  return { ...t, precision: answered === 0 ? 1 : t.right / answered, recall: t.expected === 0 ? 1 : t.right / t.expected };
}

function timing(fn, mails) {
  // Fresh objects every round: nothing is reused between rounds.
  const times = [];
  for (let round = -2; round < ROUNDS; round++) {
    const copies = mails.map(({ msg }) => ({ ...msg }));
    const started = performance.now();
    for (const msg of copies) fn(msg);
    if (round >= 0) times.push((performance.now() - started) / copies.length);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** Loads one part: its parsed mails and its expected answers (an empty part when the folder is missing). */
export async function loadPart(dir) {
  if (!existsSync(`${dir}expected.json`)) return { mails: [], expected: {} };
  const expected = JSON.parse(readFileSync(`${dir}expected.json`, 'utf8'));
  const mails = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.eml')).sort()) {
    const email = await parseMessage(readFileSync(`${dir}${file}`));
    mails.push({ file, msg: { subject: email.subject, text: email.text, html: email.html } });
  }
  return { mails, expected };
}

const pct = (x) => `${(x * 100).toFixed(1)}%`.padStart(7);

export async function extraction() {
  const rows = [];
  const all = [];
  console.log(`\nExtraction over the sample corpus, per part (link + code per mail; precision = right / answered, recall = right / expected)`);
  console.log('part      tuned  mails  extractor                 precision  recall  right  wrong  missed');
  for (const part of PARTS) {
    const { mails, expected } = await loadPart(part.dir);
    if (mails.length === 0) continue;
    all.push(...mails);
    for (const [name, fn] of [['mailwright/extract', mailwright], ['hand-written regexes', byHand]]) {
      const t = tally(fn, mails, expected);
      rows.push({ part: part.name, name, ...t });
      console.log(`${part.name.padEnd(10)}${(part.tuned ? 'yes' : 'no').padEnd(7)}${String(mails.length).padStart(5)}  ${name.padEnd(24)}${pct(t.precision)}  ${pct(t.recall)} ${String(t.right).padStart(6)} ${String(t.wrong).padStart(6)} ${String(t.missed).padStart(7)}`);
    }
  }
  const ms = { mailwright: timing(mailwright, all), byHand: timing(byHand, all) };
  console.log(`time per message over all ${all.length} mails, median of ${ROUNDS} rounds: mailwright/extract ${ms.mailwright.toFixed(3)} ms, hand-written regexes ${ms.byHand.toFixed(3)} ms`);
  return { rows, ms };
}

if (import.meta.url === `file://${process.argv[1]}`) await extraction();
