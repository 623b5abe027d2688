#!/usr/bin/env node
// Part of CI (.ci/run): every package in package-lock.json must run on the Node versions package.json declares.
// Lists each one whose engines.node range does not admit the lowest Node we declare (nor the Node running this,
// when we declare it): name, version, range, who pulls it in and the way out; then exits 1.
import { readFileSync } from 'node:fs';
import semver from 'semver';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));

const declared = pkg.engines?.node;
if (typeof declared !== 'string' || !semver.validRange(declared)) {
  console.error(`check-engines: package.json has no valid engines.node (${JSON.stringify(declared)})`);
  process.exit(1);
}
const floor = semver.minVersion(declared).version;
const nodes = [floor];
if (process.versions.node !== floor && semver.satisfies(process.versions.node, declared)) nodes.push(process.versions.node);

const entries = Object.entries(lock.packages ?? {});
const nameOf = (path, entry) => entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

// Where `name` resolves from the package at `from`, as Node resolves it: the nearest node_modules up the path.
function resolve(from, name) {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return undefined;
  }
}

function dependentsOf(path, name) {
  const out = [];
  for (const [from, entry] of entries) {
    const wants = { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies };
    if (name in wants && resolve(from, name) === path) out.push(from === '' ? `${pkg.name} (package.json)` : `${nameOf(from, entry)}@${entry.version}`);
  }
  return out;
}

const bad = [];
for (const [path, entry] of entries) {
  if (path === '' || entry.link) continue;
  const range = entry.engines?.node;
  if (range === undefined) continue;
  // As npm checks with engine-strict: an unparseable range admits nothing.
  const excluded = nodes.filter((v) => !semver.satisfies(v, range, { includePrerelease: true }));
  if (excluded.length) bad.push({ path, entry, name: nameOf(path, entry), range, excluded });
}

if (bad.length === 0) {
  console.log(`check-engines: all ${entries.length - 1} packages in package-lock.json admit Node ${nodes.join(' and ')} (package.json: node ${declared})`);
  process.exit(0);
}

console.error(`check-engines: ${bad.length} package(s) in package-lock.json do not run on the Node versions package.json declares (node ${declared}):`);
for (const { path, entry, name, range, excluded } of bad) {
  const kind = entry.optional ? ' (optional: npm skips it there)' : entry.dev ? ' (dev only)' : '';
  console.error(`  ${name}@${entry.version}${kind}: engines.node "${range}" excludes Node ${excluded.join(', ')}`);
  console.error(`    at ${path}, pulled in by ${dependentsOf(path, name).join(', ') || 'nothing (extraneous)'}`);
}
console.error(
  [
    'The way out, for each: move the package that pulls it in to a version whose dependency supports our range,',
    'or pin the dependency to a line that does with an `overrides` entry in package.json, scoped to its dependents',
    '(e.g. "overrides": { "<dependent>": { "<name>": "<range>" } }) after checking the dependent only uses APIs that',
    'line has; then run `npm install` and this check again.',
  ].join('\n'),
);
process.exit(1);
