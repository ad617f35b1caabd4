extension ErrorCode {
    /// The codes this build knows, with their wire names. Documentation order: SECURITY.md and openapi.yaml list them
    /// in this order, and a test checks both against this list.
    enum Known: String, CaseIterable {
        case invalidJSON = "invalid_json"
        case invalidArgument = "invalid_argument"
        case invalidNickname = "invalid_nickname"
        case invalidToken = "invalid_token"
        case invalidMessageID = "invalid_message_id"
        case invalidFingerprint = "invalid_fingerprint"
        case invalidCursor = "invalid_cursor"
        case invalidPageLimit = "invalid_limit"
        case invalidSequence = "invalid_sequence"
        case invalidAvatar = "invalid_avatar"
        case invalidKey = "invalid_key"
        case invalidRecord = "invalid_record"
        case recordTokenMismatch = "record_token_mismatch"
        case invalidKeyDerivation = "invalid_key_derivation"
        case invalidNonce = "invalid_nonce"
        case invalidSignature = "invalid_signature"
        case badProof = "bad_proof"
        case badSignature = "bad_signature"
        case malformedEnvelope = "malformed_envelope"
        case malformed = "malformed"
        case unsupportedVersion = "unsupported_version"
        case sentAtOutOfRange = "sent_at_out_of_range"
        case tooManyIDs = "too_many_ids"
        case invalidFrame = "invalid_frame"
        case unauthenticated = "unauthenticated"
        case invalidSession = "invalid_session"
        case challengeInvalid = "challenge_invalid"
        case alreadyAuthenticated = "already_authenticated"
        case senderMismatch = "sender_mismatch"
        case wrongSecret = "wrong_secret"
        case accountSuspended = "account_suspended"
        case registrationClosed = "registration_closed"
        case inviteInvalid = "invite_invalid"
        case notFound = "not_found"
        case methodNotAllowed = "method_not_allowed"
        case unknownNickname = "unknown_nickname"
        case unknownToken = "unknown_token"
        case unknownRecipient = "unknown_recipient"
        case nicknameTaken = "nickname_taken"
        case tokenTaken = "token_taken"
        case messageIDConflict = "message_id_conflict"
        case recipientKeyChanged = "recipient_key_changed"
        case messageExpired = "message_expired"
        case envelopeTooLarge = "envelope_too_large"
        case requestTooLarge = "request_too_large"
        case rateLimited = "rate_limited"
        case mailboxFull = "mailbox_full"
        case mailboxQuotaExceeded = "mailbox_quota_exceeded"
        case blobTooLarge = "blob_too_large"
        case blobQuotaExceeded = "blob_quota_exceeded"
        case blobOffsetMismatch = "blob_offset_mismatch"
        case blobIncomplete = "blob_incomplete"
        case unknownBlob = "unknown_blob"
        case storageUnavailable = "storage_unavailable"
        case storageFull = "storage_full"
        case storageCorrupted = "storage_corrupted"
        case notReady = "not_ready"
        case internalError = "internal_error"
        case cryptoLibrary = "crypto_library"
        case notForMe = "not_for_me"
        case senderKeyMismatch = "sender_key_mismatch"
        case decryptionFailed = "decryption_failed"
        case unknownSender = "unknown_sender"
        case invalidProof = "invalid_proof"
        case proofOutOfRange = "proof_out_of_range"
        case missingLogNode = "missing_log_node"
        case unverifiedNote = "unverified_note"
        case wrongLogOrigin = "wrong_log_origin"
        case logForked = "log_forked"
        case notText = "not_text"
        case attachmentCorrupt = "attachment_corrupt"
        case relayUnreachable = "relay_unreachable"
        case invalidResponse = "invalid_response"
        case keyChanged = "key_changed"
        case relayChanged = "relay_changed"
        case notRegistered = "not_registered"
        case alreadyRegistered = "already_registered"
        case secretUnavailable = "secret_unavailable"
        case invalidInput = "invalid_input"
        case localStore = "local_store"
        case streamFailed = "stream_failed"

        var isClientSide: Bool {
            switch self {
            case .notForMe, .senderKeyMismatch, .decryptionFailed, .unknownSender, .notText, .attachmentCorrupt,
                .malformed,
                .invalidProof,
                .missingLogNode, .unverifiedNote, .wrongLogOrigin, .logForked,
                .relayUnreachable, .invalidResponse,
                .keyChanged, .relayChanged, .notRegistered, .alreadyRegistered, .secretUnavailable, .invalidInput,
                .localStore,
                .streamFailed, .storageCorrupted, .cryptoLibrary:
                true
            default:
                false
            }
        }
    }
}
