import COpenSSL
import WotsCore

/// An OpenSSL RSA-2048 key (public, or private with its public half), parsed once and shared by value.
///
/// Every operation uses the exact parameters SECURITY.md fixes: RSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte
/// salt for signatures; RSA-OAEP with SHA-256 and MGF1-SHA-256 for key wrapping. None relies on OpenSSL defaults.
struct RSAKey: Sendable {
    static let bits: Int32 = 2048
    static let modulusSize = 256
    static let pssSaltLength: Int32 = 32

    let backing: Backing

    var pointer: OpaquePointer { self.backing.pointer }

    // @unchecked: the EVP_PKEY is never mutated after init; OpenSSL 3 allows concurrent use of a const key. The
    // spare operation contexts are only reached through `ContextSlot`, which hands each to one caller at a time.
    final class Backing: @unchecked Sendable {
        let pointer: OpaquePointer
        let sign = ContextSlot()
        let verify = ContextSlot()
        let encrypt = ContextSlot()
        let decrypt = ContextSlot()

        init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }

        // The contexts hold references to the key, so they go first. EVP_PKEY_free cleanses the private components
        // of an RSA key before releasing them.
        deinit {
            for slot in [self.sign, self.verify, self.encrypt, self.decrypt] { slot.drain() }
            EVP_PKEY_free(self.pointer)
        }
    }

    private init(takingOwnershipOf pointer: OpaquePointer) {
        self.backing = Backing(takingOwnershipOf: pointer)
    }
}

// MARK: - Making and reading keys

extension RSAKey {
    /// Generates a fresh RSA-2048 key pair with e = 65537.
    static func generate() throws -> RSAKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else {
            throw WotsError.openSSL("EVP_PKEY_CTX_new_from_name(RSA)")
        }
        defer { EVP_PKEY_CTX_free(context) }
        try check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        try check(EVP_PKEY_CTX_set_rsa_keygen_bits(context, Self.bits), "EVP_PKEY_CTX_set_rsa_keygen_bits")
        // 65537 is OpenSSL's default public exponent; `validate` below insists on it, so a change would be caught.
        var key: OpaquePointer? = nil
        try check(EVP_PKEY_keygen(context, &key), "EVP_PKEY_keygen")
        guard let key else { throw WotsError.openSSL("EVP_PKEY_keygen") }
        let result = RSAKey(takingOwnershipOf: key)
        try result.validate(what: "generated key")
        return result
    }

    /// Parses a DER SubjectPublicKeyInfo holding an RSA-2048 key with e = 65537, in its canonical encoding only.
    /// - Throws: `WotsError.invalidKey` naming what is wrong.
    static func parsePublic(spkiDER der: [UInt8], what: String) throws -> RSAKey {
        guard !der.isEmpty, der.count < 4096 else {
            throw WotsError(.invalidKey, "\(what) is \(der.count) bytes, not an RSA-2048 SubjectPublicKeyInfo")
        }
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else { return nil }
            // Trailing bytes would let one key have many spellings, hence many fingerprints.
            guard cursor == buffer.baseAddress! + buffer.count else {
                EVP_PKEY_free(key)
                return nil
            }
            return key
        }
        guard let parsed else {
            OpenSSLError.clear()
            throw WotsError(.invalidKey, "\(what) is not a DER SubjectPublicKeyInfo")
        }
        let key = RSAKey(takingOwnershipOf: parsed)
        try key.validate(what: what)
        guard try key.spkiDER() == der else {
            throw WotsError(.invalidKey, "\(what) is not in canonical DER")
        }
        return key
    }

    /// Parses a DER PKCS#8 PrivateKeyInfo holding an RSA-2048 key with e = 65537.
    /// - Throws: `WotsError.invalidKey` naming what is wrong.
    static func parsePrivate(pkcs8DER der: [UInt8], what: String) throws -> RSAKey {
        guard !der.isEmpty, der.count < 8192 else {
            throw WotsError(.invalidKey, "\(what) is \(der.count) bytes, not an RSA-2048 PKCS#8 private key")
        }
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let info = d2i_PKCS8_PRIV_KEY_INFO(nil, &cursor, buffer.count) else { return nil }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            guard cursor == buffer.baseAddress! + buffer.count else { return nil }
            return EVP_PKCS82PKEY(info)
        }
        guard let parsed else {
            OpenSSLError.clear()
            throw WotsError(.invalidKey, "\(what) is not a DER PKCS#8 private key")
        }
        let key = RSAKey(takingOwnershipOf: parsed)
        try key.validate(what: what)
        return key
    }

    /// Refuses anything but a plain RSA (rsaEncryption) key of 2048 bits with public exponent 65537.
    private func validate(what: String) throws {
        guard EVP_PKEY_get_base_id(self.pointer) == EVP_PKEY_RSA else {
            OpenSSLError.clear()
            throw WotsError(.invalidKey, "\(what) is not an RSA key")
        }
        let bits = EVP_PKEY_get_bits(self.pointer)
        guard bits == Self.bits else {
            throw WotsError(.invalidKey, "\(what) is RSA-\(bits) (must be RSA-2048)")
        }
        var exponent: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(self.pointer, OSSL_PKEY_PARAM_RSA_E, &exponent) == 1, let exponent else {
            OpenSSLError.clear()
            throw WotsError(.invalidKey, "\(what) has no readable public exponent")
        }
        defer { BN_free(exponent) }
        guard BN_is_word(exponent, 65537) == 1 else {
            throw WotsError(.invalidKey, "\(what) has a public exponent other than 65537")
        }
    }

    /// The DER SubjectPublicKeyInfo of the (public half of the) key.
    func spkiDER() throws -> [UInt8] {
        let length = i2d_PUBKEY(self.pointer, nil)
        guard length > 0 else { throw WotsError.openSSL("i2d_PUBKEY") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_PUBKEY(self.pointer, &cursor)
        }
        guard written == length else { throw WotsError.openSSL("i2d_PUBKEY") }
        return der
    }

    /// The DER PKCS#8 PrivateKeyInfo. The caller must `cleanse` it when done.
    func pkcs8DER() throws -> [UInt8] {
        guard let info = EVP_PKEY2PKCS8(self.pointer) else { throw WotsError.openSSL("EVP_PKEY2PKCS8") }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        let length = i2d_PKCS8_PRIV_KEY_INFO(info, nil)
        guard length > 0 else { throw WotsError.openSSL("i2d_PKCS8_PRIV_KEY_INFO") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_PKCS8_PRIV_KEY_INFO(info, &cursor)
        }
        guard written == length else {
            cleanse(&der)
            throw WotsError.openSSL("i2d_PKCS8_PRIV_KEY_INFO")
        }
        return der
    }
}

// MARK: - Operations

extension RSAKey {
    /// Signs `message` with RSA-PSS (SHA-256, MGF1-SHA-256, salt 32). Needs a private key.
    func signPSS(_ message: [UInt8]) throws -> [UInt8] {
        let digest = SHA256.hash(message)
        var signature = [UInt8](repeating: 0, count: Self.modulusSize)
        var length = Self.modulusSize
        try self.withContext(self.backing.sign, making: .sign) { context in
            try check(EVP_PKEY_sign(context, &signature, &length, digest, digest.count), "EVP_PKEY_sign(PSS)")
        }
        guard length == Self.modulusSize else {
            throw WotsError(.cryptoLibrary, "RSA-PSS signature is \(length) bytes")
        }
        return signature
    }

    /// Whether `signature` is a valid RSA-PSS (SHA-256, MGF1-SHA-256, salt 32) signature over `message`.
    func verifyPSS(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == Self.modulusSize else { return false }
        let digest = SHA256.hash(message)
        do {
            try self.withContext(self.backing.verify, making: .verify) { context in
                // A bad signature returns 0 and queues an error; `withContext` clears it and drops the context.
                try check(
                    EVP_PKEY_verify(context, signature, signature.count, digest, digest.count),
                    "EVP_PKEY_verify(PSS)"
                )
            }
            return true
        } catch {
            return false
        }
    }

    /// Encrypts a short secret with RSA-OAEP (SHA-256, MGF1-SHA-256, empty label).
    func encryptOAEP(_ plaintext: [UInt8]) throws -> [UInt8] {
        var ciphertext = [UInt8](repeating: 0, count: Self.modulusSize)
        var length = Self.modulusSize
        try self.withContext(self.backing.encrypt, making: .encrypt) { context in
            try check(
                EVP_PKEY_encrypt(context, &ciphertext, &length, plaintext, plaintext.count),
                "EVP_PKEY_encrypt(OAEP)"
            )
        }
        guard length == Self.modulusSize else { throw WotsError(.cryptoLibrary, "RSA-OAEP output is \(length) bytes") }
        return ciphertext
    }

    /// Decrypts RSA-OAEP (SHA-256, MGF1-SHA-256). Needs a private key. The caller must `cleanse` the result.
    /// - Throws: `WotsError.decryptionFailed` when the ciphertext was not made for this key.
    func decryptOAEP(_ ciphertext: [UInt8]) throws -> [UInt8] {
        guard ciphertext.count == Self.modulusSize else {
            throw WotsError(.decryptionFailed, "wrapped key is \(ciphertext.count) bytes (must be 256)")
        }
        var plaintext = [UInt8](repeating: 0, count: Self.modulusSize)
        var length = Self.modulusSize
        do {
            try self.withContext(self.backing.decrypt, making: .decrypt) { context in
                try check(
                    EVP_PKEY_decrypt(context, &plaintext, &length, ciphertext, ciphertext.count),
                    "EVP_PKEY_decrypt(OAEP)"
                )
            }
        } catch {
            cleanse(&plaintext)
            throw WotsError(.decryptionFailed, "the wrapped content key does not open with this encryption key")
        }
        let opened = Array(plaintext[..<length])
        cleanse(&plaintext)
        return opened
    }

    enum Operation {
        case sign, verify, encrypt, decrypt
    }

    /// Runs `body` with an initialised context for `operation`: a spare one kept with the key, or a new one.
    ///
    /// Creating and initialising an EVP_PKEY_CTX costs OpenSSL 3 about a tenth of an RSA private-key operation, so
    /// one spare per key and operation is kept for the next caller. A context that saw a failure is never reused.
    private func withContext(
        _ slot: ContextSlot,
        making operation: Operation,
        _ body: (OpaquePointer) throws -> Void
    ) throws {
        let context = try slot.take() ?? self.makeContext(operation)
        do {
            try body(context)
        } catch {
            OpenSSLError.clear()
            EVP_PKEY_CTX_free(context)
            throw error
        }
        slot.put(context)
    }

    private func makeContext(_ operation: Operation) throws -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, self.pointer, nil) else {
            throw WotsError.openSSL("EVP_PKEY_CTX_new_from_pkey")
        }
        do {
            switch operation {
            case .sign, .verify:
                if operation == .sign {
                    try check(EVP_PKEY_sign_init(context), "EVP_PKEY_sign_init")
                } else {
                    try check(EVP_PKEY_verify_init(context), "EVP_PKEY_verify_init")
                }
                try check(
                    EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING),
                    "EVP_PKEY_CTX_set_rsa_padding(PSS)"
                )
                try check(
                    EVP_PKEY_CTX_set_signature_md(context, Algorithms.sha256.pointer),
                    "EVP_PKEY_CTX_set_signature_md"
                )
                try check(
                    EVP_PKEY_CTX_set_rsa_mgf1_md_name(context, Algorithms.sha256Name, nil),
                    "EVP_PKEY_CTX_set_rsa_mgf1_md_name"
                )
                try check(
                    EVP_PKEY_CTX_set_rsa_pss_saltlen(context, Self.pssSaltLength),
                    "EVP_PKEY_CTX_set_rsa_pss_saltlen"
                )
            case .encrypt, .decrypt:
                if operation == .encrypt {
                    try check(EVP_PKEY_encrypt_init(context), "EVP_PKEY_encrypt_init")
                } else {
                    try check(EVP_PKEY_decrypt_init(context), "EVP_PKEY_decrypt_init")
                }
                try check(
                    EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING),
                    "EVP_PKEY_CTX_set_rsa_padding(OAEP)"
                )
                try check(
                    EVP_PKEY_CTX_set_rsa_oaep_md_name(context, Algorithms.sha256Name, nil),
                    "EVP_PKEY_CTX_set_rsa_oaep_md_name"
                )
                try check(
                    EVP_PKEY_CTX_set_rsa_mgf1_md_name(context, Algorithms.sha256Name, nil),
                    "EVP_PKEY_CTX_set_rsa_mgf1_md_name"
                )
            }
        } catch {
            EVP_PKEY_CTX_free(context)
            throw error
        }
        return context
    }
}
