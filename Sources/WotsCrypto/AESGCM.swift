import COpenSSL
import WotsCore

/// AES-256-GCM with a 12-byte nonce and a 16-byte tag appended to the ciphertext.
enum AESGCM {
    static let keySize = 32
    static let nonceSize = 12
    static let tagSize = 16

    /// Encrypts and authenticates `plaintext` and `aad`; returns ciphertext followed by the tag.
    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) throws -> [UInt8] {
        precondition(key.count == keySize && nonce.count == nonceSize, "AES-256-GCM key or nonce of the wrong size")
        guard let context = EVP_CIPHER_CTX_new() else { throw WotsError.openSSL("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        try check(
            EVP_EncryptInit_ex(context, Algorithms.aes256GCM.pointer, nil, nil, nil),
            "EVP_EncryptInit_ex(aes-256-gcm)"
        )
        try check(
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonceSize), nil),
            "EVP_CIPHER_CTX_ctrl(GCM_SET_IVLEN)"
        )
        try check(EVP_EncryptInit_ex(context, nil, nil, key, nonce), "EVP_EncryptInit_ex(key, nonce)")
        var length: Int32 = 0
        if !aad.isEmpty {
            try check(EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)), "EVP_EncryptUpdate(aad)")
        }
        var output = [UInt8](repeating: 0, count: plaintext.count + tagSize)
        var written = 0
        try output.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            if !plaintext.isEmpty {
                try check(
                    EVP_EncryptUpdate(context, base, &length, plaintext, Int32(plaintext.count)),
                    "EVP_EncryptUpdate"
                )
                written = Int(length)
            }
            try check(EVP_EncryptFinal_ex(context, base + written, &length), "EVP_EncryptFinal_ex")
            written += Int(length)
            guard written == plaintext.count else { throw WotsError(.cryptoLibrary, "AES-GCM wrote \(written) bytes") }
            try check(
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagSize), base + written),
                "EVP_CIPHER_CTX_ctrl(GCM_GET_TAG)"
            )
        }
        return output
    }

    /// Checks the tag and decrypts; the caller must `cleanse` the result once done with it if it is secret.
    /// - Throws: `failure` when the tag does not match (wrong key, or anything changed), `crypto_library` otherwise.
    static func open(
        _ sealed: [UInt8],
        key: [UInt8],
        nonce: [UInt8],
        aad: [UInt8],
        failure: @autoclosure () -> WotsError
    ) throws -> [UInt8] {
        guard key.count == keySize, nonce.count == nonceSize, sealed.count >= tagSize else { throw failure() }
        guard let context = EVP_CIPHER_CTX_new() else { throw WotsError.openSSL("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        try check(
            EVP_DecryptInit_ex(context, Algorithms.aes256GCM.pointer, nil, nil, nil),
            "EVP_DecryptInit_ex(aes-256-gcm)"
        )
        try check(
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonceSize), nil),
            "EVP_CIPHER_CTX_ctrl(GCM_SET_IVLEN)"
        )
        try check(EVP_DecryptInit_ex(context, nil, nil, key, nonce), "EVP_DecryptInit_ex(key, nonce)")
        var length: Int32 = 0
        if !aad.isEmpty {
            try check(EVP_DecryptUpdate(context, nil, &length, aad, Int32(aad.count)), "EVP_DecryptUpdate(aad)")
        }
        let ciphertextCount = sealed.count - tagSize
        var tag = Array(sealed[ciphertextCount...])
        var output = [UInt8](repeating: 0, count: ciphertextCount)
        var written = 0
        let authentic = try sealed.withUnsafeBufferPointer { input -> Bool in
            try output.withUnsafeMutableBufferPointer { buffer -> Bool in
                let base = buffer.baseAddress!
                if ciphertextCount > 0 {
                    try check(
                        EVP_DecryptUpdate(context, base, &length, input.baseAddress, Int32(ciphertextCount)),
                        "EVP_DecryptUpdate"
                    )
                    written = Int(length)
                }
                try check(
                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), &tag),
                    "EVP_CIPHER_CTX_ctrl(GCM_SET_TAG)"
                )
                // Returns 0 when the tag does not match: expected for forgeries, not a library failure.
                return EVP_DecryptFinal_ex(context, base + written, &length) == 1
            }
        }
        guard authentic else {
            cleanse(&output)
            OpenSSLError.clear()
            throw failure()
        }
        return output
    }
}
