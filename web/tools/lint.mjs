#!/usr/bin/env node
// The web client's own lint, which needs nothing but Node: every module parses as an ES module (`node --check`),
// and the house rules hold — ES modules only, no inline script or event-handler attributes in HTML, no eval or
// Function constructor, no innerHTML/outerHTML assignment or document.write, no imports of packages or URLs, no
// third-party URLs at all. ESLint (tools/test.sh runs it when installed) checks the same rules on the syntax tree;
// these text checks are the floor that holds on any machine with Node.
//
// js/vendor/ holds files copied unchanged from Debian packages (a classic script, not a module): they must parse
// and must not eval or write HTML, but their UMD wrapper (`module.exports` for Node) and the URLs in their license
// comments are theirs.
//
// Usage: node web/tools/lint.mjs   (exit 1 and one line per problem when something is wrong)

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const webRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const thisFile = fileURLToPath(import.meta.url);

// Hosts a URL may name: the machine itself, RFC 2606 example domains, XML namespace identifiers (never fetched).
const allowedHosts = /^(localhost|127\.0\.0\.1|\[::1\]|example\.(com|org|net)|[a-z0-9.-]+\.example|www\.w3\.org)$/;

const scriptRules = [
    [/\brequire\s*\(/, 'CommonJS require(): ES modules only'],
    [/\bmodule\.exports\b|\bexports\.[A-Za-z_$]/, 'CommonJS exports: ES modules only'],
    [/\beval\s*\(/, 'eval()'],
    [/\bnew\s+Function\s*\(|(^|[^.\w$])Function\s*\(\s*['"`]/, 'the Function constructor (eval by another name)'],
    [/\bset(Timeout|Interval)\s*\(\s*['"`]/, 'setTimeout/setInterval with a string (eval by another name)'],
    [/\.(innerHTML|outerHTML)\s*(\+|-)?=(?!=)/, 'innerHTML/outerHTML assignment: build nodes or set textContent'],
    [/\.insertAdjacentHTML\s*\(|\bdocument\.write(ln)?\s*\(/, 'HTML string injection (insertAdjacentHTML, document.write)'],
    [/^\s*import\s[^'"]*?from\s*['"](?!\.{1,2}\/|node:)/, 'import of a package or URL: relative files (or node: built-ins) only'],
    [/\bimport\s*\(\s*['"](?!\.{1,2}\/|node:)/, 'dynamic import of a package or URL'],
];

const htmlRules = [
    [/<script\b(?![^>]*\bsrc\s*=)[^>]*>/i, 'inline <script> (scripts are files loaded with src)'],
    [/<script\b(?![^>]*\btype\s*=\s*["']?module)[^>]*>/i, '<script> without type="module"'],
    [/\son[a-z]+\s*=/i, 'inline event-handler attribute (on…=)'],
    // The pattern that finds such URLs, not one (ESLint 6 takes no reason after the rule name).
    // eslint-disable-next-line no-script-url
    [/\bjavascript:/i, 'javascript: URL'],
];

function* files(folder) {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === '__pycache__') continue;
        const path = join(folder, entry.name);
        if (entry.isDirectory()) yield* files(path);
        else yield path;
    }
}

const vendored = (path) => relative(webRoot, path).startsWith(join('js', 'vendor'));
const commonJSRules = new Set(scriptRules.slice(0, 2));

const problems = [];
const report = (path, line, message) => problems.push(`${relative(process.cwd(), path)}:${line}: ${message}`);

function checkLines(path, text, rules) {
    text.split('\n').forEach((line, index) => {
        for (const [pattern, message] of rules) if (pattern.test(line)) report(path, index + 1, message);
    });
}

function checkURLs(path, text) {
    text.split('\n').forEach((line, index) => {
        for (const match of line.matchAll(/\b(?:https?|wss?):\/\/([^/\s'"`)>]+)/gi)) {
            // The port may be computed (`${port}`); only the host matters.
            const host = match[1].toLowerCase().replace(/^(\[[^\]]*\]|[^:]*):.*$/, '$1');
            if (!allowedHosts.test(host)) report(path, index + 1, `third-party URL (${match[0]}): serve it from the relay`);
        }
    });
}

let checked = 0;
for (const path of files(webRoot)) {
    const isScript = /\.(m?js)$/.test(path);
    const isMarkup = /\.(html?|css|svg)$/.test(path);
    if (!isScript && !isMarkup) continue;
    checked++;
    const text = readFileSync(path, 'utf8');
    if (!vendored(path)) checkURLs(path, text);
    if (isScript) {
        if (/\.cjs$/.test(path)) report(path, 1, 'CommonJS file: ES modules only');
        const parse = spawnSync(process.execPath, ['--check', path], { encoding: 'utf8' });
        if (parse.status !== 0) report(path, 1, `does not parse: ${parse.stderr.trim().split('\n').slice(0, 5).join(' | ')}`);
        const rules = vendored(path) ? scriptRules.filter((rule) => !commonJSRules.has(rule)) : scriptRules;
        // This file spells out the patterns it forbids.
        if (path !== thisFile) checkLines(path, text, rules);
    }
    if (/\.html?$/.test(path)) checkLines(path, text, htmlRules);
}

if (problems.length > 0) {
    console.error(problems.join('\n'));
    console.error(`lint: ${problems.length} problem(s) in ${checked} files`);
    process.exit(1);
}
console.log(`lint: ${checked} files checked, no problems`);
