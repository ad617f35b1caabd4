/**
 * The safety number as a QR code under its digits, drawn on a <canvas> (no data: URL, no inline script). The
 * encoder is Debian's node-qrcode-generator, copied unchanged to js/vendor/: a classic script, so it is loaded once
 * by adding a `<script src>` from this origin (the CSP's `script-src 'self'`), and it defines the global `qrcode`.
 * The code holds the 60 digits (numeric mode, error correction M), so any QR reader shows the same digits.
 */

let loading = null;

/** The vendored encoder's `qrcode(typeNumber, errorCorrectionLevel)` factory, loaded on first use. */
export function loadQRCode(src = new URL('../vendor/qrcode-generator.js', import.meta.url).href) {
    if (typeof globalThis.qrcode === 'function') return Promise.resolve(globalThis.qrcode);
    loading ??= new Promise((resolve, reject) => {
        const script = document.createElement('script');
        script.src = src;
        script.addEventListener('load', () => resolve(globalThis.qrcode));
        script.addEventListener('error', () => {
            loading = null;
            reject(new Error('the QR code encoder did not load'));
        });
        document.head.append(script);
    });
    return loading;
}

/**
 * The modules of the smallest QR code that holds `digits` (whitespace dropped), row by row, true for dark.
 * @param {Function} qrcode the encoder's factory
 */
export function qrMatrix(qrcode, digits) {
    const code = qrcode(0, 'M');
    code.addData(String(digits).replace(/\s+/g, ''), 'Numeric');
    code.make();
    const count = code.getModuleCount();
    return Array.from({ length: count }, (_, row) => Array.from({ length: count }, (__, column) =>
        code.isDark(row, column)));
}

/** A labelled canvas showing `matrix`, `scale` pixels a module, with the 4-module quiet zone readers need. */
export function qrCanvas(matrix, { scale = 4, label = 'QR code' } = {}) {
    const quiet = 4;
    const side = (matrix.length + 2 * quiet) * scale;
    const canvas = document.createElement('canvas');
    canvas.width = side;
    canvas.height = side;
    canvas.className = 'qr-code';
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', label);
    const context = canvas.getContext('2d');
    context.fillStyle = '#fff';
    context.fillRect(0, 0, side, side);
    context.fillStyle = '#000';
    matrix.forEach((row, y) => row.forEach((dark, x) => {
        if (dark) context.fillRect((x + quiet) * scale, (y + quiet) * scale, scale, scale);
    }));
    return canvas;
}

/** The QR code of a safety number, or null when the encoder cannot load (the digits alone still serve). */
export async function safetyNumberQR(safetyNumber) {
    try {
        const matrix = qrMatrix(await loadQRCode(), safetyNumber);
        return qrCanvas(matrix, { label: 'QR code of the safety number (the same 60 digits)' });
    } catch {
        return null;
    }
}
