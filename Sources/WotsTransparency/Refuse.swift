import WotsCore

/// Every error this module throws is made here.
enum Refuse {
    static func malformed(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        WotsError(.malformed, reason, file: file, line: line)
    }

    static func invalidProof(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        WotsError(.invalidProof, reason, file: file, line: line)
    }

    static func outOfRange(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        WotsError(.proofOutOfRange, reason, file: file, line: line)
    }

    static func missingNode(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        WotsError(.missingLogNode, reason, file: file, line: line)
    }

    static func invalidKey(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        WotsError(.invalidKey, reason, file: file, line: line)
    }

    static func badSignature(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        WotsError(.badSignature, reason, file: file, line: line)
    }

    static func unverified(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        WotsError(.unverifiedNote, reason, file: file, line: line)
    }

    static func wrongOrigin(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        WotsError(.wrongLogOrigin, reason, file: file, line: line)
    }
}
