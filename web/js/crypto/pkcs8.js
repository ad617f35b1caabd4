/**
 * Reads the public numbers (modulus, exponent) out of an RSA PKCS#8 PrivateKeyInfo, so the public key of an
 * imported private key can be rebuilt without exporting the private key: WebCrypto shows the public half of a
 * private key only through a JWK export that also holds the private exponent and primes, as strings nothing can
 * wipe. WebCrypto still parses and validates the whole key on import; this only walks to the two numbers.
 */

import { CryptoError, CryptoErrorCode } from './errors.js';

const tags = Object.freeze({ integer: 0x02, octetString: 0x04, sequence: 0x30 });

/** One DER element at `offset`: its tag and where its contents start and end. Null when it does not fit. */
function element(bytes, offset, end) {
    if (offset + 2 > end) return null;
    const tag = bytes[offset];
    let length = bytes[offset + 1];
    let start = offset + 2;
    if (length & 0x80) {
        const count = length & 0x7f;
        if (count < 1 || count > 3 || start + count > end) return null;
        length = 0;
        for (let i = 0; i < count; i++) length = length * 256 + bytes[start + i];
        start += count;
    }
    return start + length > end ? null : { tag, start, end: start + length };
}

/**
 * The modulus and public exponent of an RSA PKCS#8 private key, big-endian without leading zero bytes.
 * @param {Uint8Array} der
 * @returns {{modulus: Uint8Array, exponent: Uint8Array}}
 * @throws {CryptoError} `invalidKey` when the bytes do not have the PrivateKeyInfo/RSAPrivateKey shape
 */
export function rsaPublicNumbers(der, what = 'private key') {
    const fail = () => new CryptoError(CryptoErrorCode.invalidKey, `${what} is not a DER PKCS#8 RSA private key`);
    const expect = (found, tag) => {
        if (found === null || found.tag !== tag) throw fail();
        return found;
    };
    // PrivateKeyInfo ::= SEQUENCE { version INTEGER, algorithm SEQUENCE, privateKey OCTET STRING }
    const info = expect(element(der, 0, der.length), tags.sequence);
    const version = expect(element(der, info.start, info.end), tags.integer);
    const algorithm = expect(element(der, version.end, info.end), tags.sequence);
    const privateKey = expect(element(der, algorithm.end, info.end), tags.octetString);
    // RSAPrivateKey ::= SEQUENCE { version INTEGER, modulus INTEGER, publicExponent INTEGER, … }
    const rsa = expect(element(der, privateKey.start, privateKey.end), tags.sequence);
    const rsaVersion = expect(element(der, rsa.start, rsa.end), tags.integer);
    const modulus = expect(element(der, rsaVersion.end, rsa.end), tags.integer);
    const exponent = expect(element(der, modulus.end, rsa.end), tags.integer);
    const unsigned = ({ start, end }) => {
        let first = start;
        while (first < end - 1 && der[first] === 0) first++;
        return der.slice(first, end);
    };
    return { modulus: unsigned(modulus), exponent: unsigned(exponent) };
}
