/// Every error code Wots speaks: one vocabulary for the relay, its clients and the tests, whatever the transport.
///
/// A code is a stable snake_case name (`nickname_taken`), carried in HTTP error bodies and WebSocket `error` frames
/// and matched by clients. Codes this build does not know (from a newer relay) keep their name and compare by it.
/// The relay maps a code to an HTTP status at its edge only.
public struct ErrorCode: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The stable wire name.
    public let name: String

    private init(_ known: Known) { self.name = known.rawValue }

    /// A code as received on the wire; an unknown name is kept as it is.
    public init(wireName: String) { self.name = wireName }

    public var description: String { self.name }

    /// Whether only clients raise this code (it never appears in a relay's answer).
    public var isClientSide: Bool { Known(rawValue: self.name)?.isClientSide ?? false }

    /// One sentence saying what the code means, for documentation; nil for an unknown code.
    public var summary: String? { Known(rawValue: self.name)?.summary }

    /// Every code this build knows, in documentation order.
    public static var allKnown: [ErrorCode] { Known.allCases.map(ErrorCode.init) }

    public init(from decoder: any Decoder) throws {
        self.init(wireName: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.name)
    }
}

extension ErrorCode {
    // Values a request carries that break a rule.
    public static let invalidJSON = ErrorCode(.invalidJSON)
    public static let invalidArgument = ErrorCode(.invalidArgument)
    public static let invalidNickname = ErrorCode(.invalidNickname)
    public static let invalidToken = ErrorCode(.invalidToken)
    public static let invalidMessageID = ErrorCode(.invalidMessageID)
    public static let invalidFingerprint = ErrorCode(.invalidFingerprint)
    public static let invalidCursor = ErrorCode(.invalidCursor)
    public static let invalidPageLimit = ErrorCode(.invalidPageLimit)
    public static let invalidSequence = ErrorCode(.invalidSequence)
    public static let invalidAvatar = ErrorCode(.invalidAvatar)
    public static let invalidKey = ErrorCode(.invalidKey)
    public static let invalidRecord = ErrorCode(.invalidRecord)
    public static let recordTokenMismatch = ErrorCode(.recordTokenMismatch)
    public static let invalidKeyDerivation = ErrorCode(.invalidKeyDerivation)
    public static let invalidNonce = ErrorCode(.invalidNonce)
    public static let invalidSignature = ErrorCode(.invalidSignature)
    public static let badProof = ErrorCode(.badProof)
    public static let badSignature = ErrorCode(.badSignature)
    public static let malformedEnvelope = ErrorCode(.malformedEnvelope)
    public static let malformed = ErrorCode(.malformed)
    public static let unsupportedVersion = ErrorCode(.unsupportedVersion)
    public static let sentAtOutOfRange = ErrorCode(.sentAtOutOfRange)
    public static let tooManyIDs = ErrorCode(.tooManyIDs)
    public static let invalidFrame = ErrorCode(.invalidFrame)
    // Who is asking.
    public static let unauthenticated = ErrorCode(.unauthenticated)
    public static let invalidSession = ErrorCode(.invalidSession)
    public static let challengeInvalid = ErrorCode(.challengeInvalid)
    public static let alreadyAuthenticated = ErrorCode(.alreadyAuthenticated)
    public static let senderMismatch = ErrorCode(.senderMismatch)
    public static let wrongSecret = ErrorCode(.wrongSecret)
    public static let accountSuspended = ErrorCode(.accountSuspended)
    public static let registrationClosed = ErrorCode(.registrationClosed)
    public static let inviteInvalid = ErrorCode(.inviteInvalid)
    // What is missing or taken.
    public static let notFound = ErrorCode(.notFound)
    public static let methodNotAllowed = ErrorCode(.methodNotAllowed)
    public static let unknownNickname = ErrorCode(.unknownNickname)
    public static let unknownToken = ErrorCode(.unknownToken)
    public static let unknownRecipient = ErrorCode(.unknownRecipient)
    public static let nicknameTaken = ErrorCode(.nicknameTaken)
    public static let tokenTaken = ErrorCode(.tokenTaken)
    public static let messageIDConflict = ErrorCode(.messageIDConflict)
    public static let recipientKeyChanged = ErrorCode(.recipientKeyChanged)
    public static let messageExpired = ErrorCode(.messageExpired)
    // Limits.
    public static let envelopeTooLarge = ErrorCode(.envelopeTooLarge)
    public static let requestTooLarge = ErrorCode(.requestTooLarge)
    public static let rateLimited = ErrorCode(.rateLimited)
    public static let mailboxFull = ErrorCode(.mailboxFull)
    public static let mailboxQuotaExceeded = ErrorCode(.mailboxQuotaExceeded)
    public static let blobTooLarge = ErrorCode(.blobTooLarge)
    public static let blobQuotaExceeded = ErrorCode(.blobQuotaExceeded)
    public static let blobOffsetMismatch = ErrorCode(.blobOffsetMismatch)
    public static let blobIncomplete = ErrorCode(.blobIncomplete)
    public static let unknownBlob = ErrorCode(.unknownBlob)
    // Faults of the relay.
    public static let storageUnavailable = ErrorCode(.storageUnavailable)
    public static let storageFull = ErrorCode(.storageFull)
    public static let storageCorrupted = ErrorCode(.storageCorrupted)
    public static let notReady = ErrorCode(.notReady)
    public static let internalError = ErrorCode(.internalError)
    public static let cryptoLibrary = ErrorCode(.cryptoLibrary)
    // What a client finds when it opens an envelope.
    public static let notForMe = ErrorCode(.notForMe)
    public static let senderKeyMismatch = ErrorCode(.senderKeyMismatch)
    public static let decryptionFailed = ErrorCode(.decryptionFailed)
    public static let unknownSender = ErrorCode(.unknownSender)
    // The key-transparency log.
    public static let invalidProof = ErrorCode(.invalidProof)
    public static let proofOutOfRange = ErrorCode(.proofOutOfRange)
    public static let missingLogNode = ErrorCode(.missingLogNode)
    public static let unverifiedNote = ErrorCode(.unverifiedNote)
    public static let wrongLogOrigin = ErrorCode(.wrongLogOrigin)
    public static let logForked = ErrorCode(.logForked)
    public static let notText = ErrorCode(.notText)
    public static let attachmentCorrupt = ErrorCode(.attachmentCorrupt)
    // Client-side only.
    public static let relayUnreachable = ErrorCode(.relayUnreachable)
    public static let invalidResponse = ErrorCode(.invalidResponse)
    public static let keyChanged = ErrorCode(.keyChanged)
    public static let relayChanged = ErrorCode(.relayChanged)
    public static let notRegistered = ErrorCode(.notRegistered)
    public static let alreadyRegistered = ErrorCode(.alreadyRegistered)
    public static let secretUnavailable = ErrorCode(.secretUnavailable)
    public static let invalidInput = ErrorCode(.invalidInput)
    public static let localStore = ErrorCode(.localStore)
    public static let streamFailed = ErrorCode(.streamFailed)
}
