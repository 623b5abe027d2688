// Test helper for the extraction specs: loads sample emails from fixtures/emails, parsed by
// the service's own MIME parser, so extraction sees exactly what a stored message holds.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ExtractInput } from '../../../src/extract/index.js';
import { parseMessage } from '../../../src/server/mime/parse.js';

/** Absolute path of the sample corpus. */
export const CORPUS_DIR = fileURLToPath(new URL('../../../fixtures/emails/', import.meta.url));

/** What a human found by reading each sample email. */
export interface Expected {
  verificationLink: string | null;
  code: string | null;
  /** Why the answer is what it is, for samples where a reader could hesitate. */
  note?: string;
}

/** The `.eml` files of the corpus, sorted. */
export function corpusFiles(): string[] {
  return readdirSync(CORPUS_DIR).filter((f) => f.endsWith('.eml')).sort();
}

/** `fixtures/emails/expected.json`. */
export function expectedAnswers(): Record<string, Expected> {
  return JSON.parse(readFileSync(`${CORPUS_DIR}expected.json`, 'utf8')) as Record<string, Expected>;
}

/** Parses one sample email into the parts extraction reads. */
export async function loadEml(file: string): Promise<ExtractInput> {
  const email = await parseMessage(readFileSync(`${CORPUS_DIR}${file}`));
  return { subject: email.subject, text: email.text, html: email.html };
}
