#!/usr/bin/env node
// Times this module's scrypt in Node for the costs a client meets (r = 8, p = 1; N = 2^14 and the default 2^15),
// so README's figures can be re-measured: node web/tools/bench-scrypt.mjs [runs]

import { loadavg } from 'node:os';

import { scrypt } from '../js/crypto/scrypt.js';

const runs = Number(process.argv[2] ?? 7);
const password = new TextEncoder().encode('correct horse battery staple');
const salt = new Uint8Array(16);

console.log(`node ${process.version}, ${runs} runs each, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const logN of [14, 15]) {
    const times = [];
    for (let run = 0; run < runs; run++) {
        const started = performance.now();
        await scrypt({ password, salt, n: 2 ** logN, r: 8, p: 1, length: 64 });
        times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    console.log(`N=2^${logN} r=8 p=1: min ${times[0].toFixed(0)} ms, median ${median.toFixed(0)} ms`);
}
