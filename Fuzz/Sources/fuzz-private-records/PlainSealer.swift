import CFuzzOpenSSL

/// AES-256-GCM sealing of arbitrary plaintext, written apart from WotsCrypto's so the fuzzer can make blobs whose tag
/// verifies and reach the parser behind it.
enum PlainSealer {
    /// `ciphertext || tag(16)` of `plaintext` under `key` (32 bytes) and `nonce` (12 bytes).
    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) -> [UInt8] {
        let context = EVP_CIPHER_CTX_new()!
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: Int32 = 0
        var written = 0
        let ok = output.withUnsafeMutableBufferPointer { out -> Bool in
            guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1,
                EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1,
                EVP_EncryptUpdate(context, out.baseAddress, &length, plaintext, Int32(plaintext.count)) == 1
            else { return false }
            written = Int(length)
            guard EVP_EncryptFinal_ex(context, out.baseAddress! + written, &length) == 1 else { return false }
            written += Int(length)
            return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, out.baseAddress! + written) == 1
        }
        precondition(ok && written == plaintext.count, "OpenSSL failed to seal")
        return output
    }
}
