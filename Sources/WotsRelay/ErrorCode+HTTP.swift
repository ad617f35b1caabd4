public import HTTPTypes
public import WotsCore

extension ErrorCode {
    /// The HTTP status a refusal with this code is answered with; the stream sends the same code in an `error` frame.
    public var httpStatus: HTTPResponse.Status {
        switch self {
        case .unauthenticated, .invalidSession, .challengeInvalid: .unauthorized
        case .senderMismatch, .wrongSecret, .accountSuspended, .registrationClosed, .inviteInvalid: .forbidden
        case .notFound, .unknownNickname, .unknownToken, .unknownRecipient, .unknownBlob: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .nicknameTaken, .tokenTaken, .messageIDConflict, .recipientKeyChanged, .alreadyAuthenticated,
            .blobOffsetMismatch, .blobIncomplete:
            .conflict
        case .messageExpired: .unprocessableContent
        case .envelopeTooLarge, .requestTooLarge, .blobTooLarge: .contentTooLarge
        case .rateLimited, .mailboxFull, .mailboxQuotaExceeded, .blobQuotaExceeded: .tooManyRequests
        case .storageUnavailable, .storageFull, .notReady: .serviceUnavailable
        case .internalError, .storageCorrupted, .cryptoLibrary, .missingLogNode: .internalServerError
        default: .badRequest
        }
    }

    /// The code for a status Hummingbird produced itself (no route, wrong method, body too large).
    static func forStatus(_ status: HTTPResponse.Status) -> ErrorCode {
        switch status.code {
        case 404: .notFound
        case 405: .methodNotAllowed
        case 413: .requestTooLarge
        case 400..<500: .invalidArgument
        default: .internalError
        }
    }
}
