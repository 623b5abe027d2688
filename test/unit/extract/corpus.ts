// Test helper for the extraction specs: loads sample emails from fixtures/emails, parsed by
// the service's own MIME parser, so extraction sees exactly what a stored message holds.
// The corpus has parts (fixtures/emails/README.md): `samples` and `study` are what the rules are
// tuned on; `check` is written before rules change and never read while they do.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ExtractInput } from '../../../src/extract/index.js';
import { parseMessage } from '../../../src/server/mime/parse.js';

/** Absolute path of the sample corpus. */
export const CORPUS_DIR = fileURLToPath(new URL('../../../fixtures/emails/', import.meta.url));

/** The parts of the corpus: hand-written classes, framework study (both tuned on), and the held-out check. */
export type CorpusPart = 'samples' | 'study' | 'check';

/** The folder of a part. */
export function partDir(part: CorpusPart): string {
  return part === 'samples' ? CORPUS_DIR : `${CORPUS_DIR}${part}/`;
}

/** What a human found by reading each sample email. */
export interface Expected {
  verificationLink: string | null;
  code: string | null;
  /** Why the answer is what it is, for samples where a reader could hesitate. */
  note?: string;
}

/** The `.eml` files of a part, sorted (none when the part's folder is missing). */
export function corpusFiles(part: CorpusPart = 'samples'): string[] {
  const dir = partDir(part);
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.eml')).sort() : [];
}

/** A part's `expected.json`. */
export function expectedAnswers(part: CorpusPart = 'samples'): Record<string, Expected> {
  const file = `${partDir(part)}expected.json`;
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, Expected>) : {};
}

/** Parses one sample email into the parts extraction reads. */
export async function loadEml(file: string, part: CorpusPart = 'samples'): Promise<ExtractInput> {
  const email = await parseMessage(readFileSync(`${partDir(part)}${file}`));
  return { subject: email.subject, text: email.text, html: email.html };
}
