import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import vm from 'node:vm';

import { qrMatrix } from '../js/views/qr-code.js';

const vendored = new URL('../js/vendor/qrcode-generator.js', import.meta.url);
const debianCopy = '/usr/share/nodejs/qrcode-generator/qrcode.js';
const header = 3;

/** Runs the vendored classic script as a browser does: its top-level `var qrcode` becomes a global. */
function loadEncoder() {
    const scope = {};
    vm.runInNewContext(readFileSync(vendored, 'utf8'), scope);
    return scope.qrcode;
}

describe('the safety number\'s QR code (js/vendor/qrcode-generator.js, from Debian)', () => {
    test('the vendored file is the Debian package\'s file, unchanged below its three-line note', (context) => {
        if (!existsSync(debianCopy)) {
            context.skip(`${debianCopy} is not installed (apt-get install node-qrcode-generator)`);
            return;
        }
        const lines = readFileSync(vendored, 'utf8').split('\n');
        assert.match(lines[0], /node-qrcode-generator 1\.4\.4\+dfsg-3/);
        assert.equal(lines.slice(header).join('\n'), readFileSync(debianCopy, 'utf8'));
    });

    test('60 digits fit a version 2 code (25 × 25, numeric mode, correction M) with its three finder patterns',
        () => {
            const digits = '12345 67890 '.repeat(5).trim();
            const matrix = qrMatrix(loadEncoder(), digits);
            assert.equal(matrix.length, 25);
            assert.ok(matrix.every((row) => row.length === 25));
            for (const [top, left] of [[0, 0], [0, 18], [18, 0]]) {
                const ring = (row, column) => matrix[top + row][left + column];
                assert.ok(ring(0, 0) && ring(0, 6) && ring(6, 0) && ring(6, 6) && ring(3, 3), `finder at ${top},${left}`);
                assert.ok(!ring(1, 1) && !ring(5, 5), `finder ring at ${top},${left}`);
            }
            assert.deepEqual(qrMatrix(loadEncoder(), digits.replaceAll(' ', '')), matrix, 'spaces are dropped');
            assert.notDeepEqual(qrMatrix(loadEncoder(), digits.replace('1', '2')), matrix);
        });
});
