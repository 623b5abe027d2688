#!/usr/bin/env node
// Refreshes the HTML check's data, src/checks/caniemail.json, from caniemail.com's API
// (https://www.caniemail.com/api/data.json, MIT, see src/checks/caniemail.LICENSE) or from a
// file (`--from FILE`). Checks its shape before writing it as served, then prints the data's
// date and which features changed, and names new slugs the detector table does not know yet.
//
//   node scripts/refresh-caniemail.js
//   node scripts/refresh-caniemail.js --from ./data.json
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SOURCE = 'https://www.caniemail.com/api/data.json';
const target = fileURLToPath(new URL('../src/checks/caniemail.json', import.meta.url));
const table = fileURLToPath(new URL('../src/checks/html-features.ts', import.meta.url));

function fail(message) {
  console.error(`refresh-caniemail: ${message}`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = { from: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--from' && argv[i + 1]) args.from = argv[++i];
    else if (argv[i] === '--help' || argv[i] === '-h') {
      console.log(`usage: node scripts/refresh-caniemail.js [--from FILE]\n  without --from, downloads ${SOURCE}`);
      process.exit(0);
    } else fail(`unknown argument "${argv[i]}"; use --from FILE, or nothing to download ${SOURCE}`);
  }
  return args;
}

async function download() {
  let response;
  try {
    response = await fetch(SOURCE, { signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    fail(`could not download ${SOURCE} (${error.cause?.message ?? error.message}); download it another way and pass --from FILE`);
  }
  if (!response.ok) fail(`${SOURCE} answered ${response.status}; try again later, or pass --from FILE`);
  return response.text();
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What is wrong with the data's shape, or undefined when the HTML check can read it. */
function shapeError(data) {
  if (!isObject(data)) return 'it is not a JSON object';
  if (typeof data.api_version !== 'string') return 'api_version is missing';
  if (typeof data.last_update_date !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(data.last_update_date)) return 'last_update_date is missing or not a date';
  if (!isObject(data.nicenames) || !isObject(data.nicenames.family) || !isObject(data.nicenames.platform)) return 'nicenames.family or nicenames.platform is missing';
  if (!Array.isArray(data.data) || data.data.length === 0) return 'data[] is missing or empty';
  const seen = new Set();
  for (const [i, feature] of data.data.entries()) {
    if (!isObject(feature) || typeof feature.slug !== 'string' || feature.slug === '') return `data[${i}] has no slug`;
    if (seen.has(feature.slug)) return `the slug "${feature.slug}" is there twice`;
    seen.add(feature.slug);
    for (const field of ['title', 'url', 'category']) if (typeof feature[field] !== 'string') return `${feature.slug} has no ${field}`;
    if (!isObject(feature.stats)) return `${feature.slug} has no stats`;
    for (const [family, platforms] of Object.entries(feature.stats)) {
      if (!isObject(platforms)) return `${feature.slug}.stats.${family} is not an object`;
      for (const [platform, versions] of Object.entries(platforms)) {
        if (!isObject(versions)) return `${feature.slug}.stats.${family}.${platform} is not an object`;
        for (const [version, value] of Object.entries(versions)) {
          if (typeof value !== 'string' || !/^[ynau](\s+#\d+)*$/.test(value.trim())) return `${feature.slug}.stats.${family}.${platform}["${version}"] is ${JSON.stringify(value)}, not y, n, a or u with #notes`;
        }
      }
    }
  }
  return undefined;
}

const args = parseArgs(process.argv.slice(2));
let text;
if (args.from) {
  try {
    text = readFileSync(args.from, 'utf8');
  } catch (error) {
    fail(`cannot read ${args.from} (${error.code ?? error.message})`);
  }
} else text = await download();

let next;
try {
  next = JSON.parse(text);
} catch (error) {
  fail(`${args.from ?? SOURCE} is not JSON (${error.message}); nothing was written`);
}
const problem = shapeError(next);
if (problem) fail(`${args.from ?? SOURCE} is not caniemail data the HTML check can read: ${problem}; nothing was written`);

const previous = existsSync(target) ? JSON.parse(readFileSync(target, 'utf8')) : { data: [] };
const before = new Map(previous.data.map((f) => [f.slug, JSON.stringify(f)]));
const after = new Map(next.data.map((f) => [f.slug, JSON.stringify(f)]));
const added = [...after.keys()].filter((slug) => !before.has(slug));
const removed = [...before.keys()].filter((slug) => !after.has(slug));
const changed = [...after.keys()].filter((slug) => before.has(slug) && before.get(slug) !== after.get(slug));

writeFileSync(target, text);
console.log(`caniemail data of ${next.last_update_date} (api ${next.api_version}): ${next.data.length} features, written to src/checks/caniemail.json`);
console.log(`${changed.length + added.length + removed.length} features changed since ${previous.last_update_date ?? 'nothing'}: ${changed.length} updated, ${added.length} new, ${removed.length} removed`);
if (added.length > 0) console.log(`  new: ${added.join(', ')}`);
if (removed.length > 0) console.log(`  removed: ${removed.join(', ')}`);

// Every slug must be in the detector table or on its list of slugs not detected (the unit test checks it).
const known = existsSync(table) ? readFileSync(table, 'utf8') : '';
const unknown = next.data.map((f) => f.slug).filter((slug) => !known.includes(`'${slug}'`) && !known.includes(`${slug}:`));
if (unknown.length > 0) {
  console.log(`Not in the detector table yet: ${unknown.join(', ')}.`);
  console.log('Add each to src/checks/html-features.ts (a detection, or NOT_DETECTED with the reason); test/unit/html-check.spec.ts fails until then.');
}
