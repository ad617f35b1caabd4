// Runs scrypt-worker.js in a Node worker thread behind a Web-Worker-shaped scope (addEventListener + postMessage),
// so tests exercise the real cross-thread message path without a browser.

import { parentPort } from 'node:worker_threads';

import { attachScryptWorker } from '../js/crypto/scrypt-worker.js';

const scope = new EventTarget();
scope.postMessage = (message) => parentPort.postMessage(message);
parentPort.on('message', (data) => scope.dispatchEvent(new MessageEvent('message', { data })));
attachScryptWorker(scope);
