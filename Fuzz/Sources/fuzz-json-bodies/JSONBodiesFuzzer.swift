import Foundation
import FuzzSupport
import WotsCore

/// Every JSON body of the relay API, decoded with `WireCoding` as `JSONBody` (relay) and `RelayClient` (client) do:
/// the requests the relay reads and the responses a client reads from a relay it need not trust. Each decoded value
/// must round-trip.
enum JSONBodiesFuzzer {
    static func check(_ bytes: [UInt8]) {
        let body = Data(bytes)
        // What the relay reads.
        Fuzz.roundTripJSON(RegistrationRequest.self, body)
        Fuzz.roundTripJSON(SessionRequest.self, body)
        Fuzz.roundTripJSON(Envelope.self, body)
        Fuzz.roundTripJSON(AcknowledgeRequest.self, body)
        Fuzz.roundTripJSON(RestoreParametersRequest.self, body)
        Fuzz.roundTripJSON(RestoreRequest.self, body)
        Fuzz.roundTripJSON(RotationRequest.self, body)
        Fuzz.roundTripJSON(DeletionRequest.self, body)
        Fuzz.roundTripJSON(PrivateRecord.self, body)
        // What a client reads from a relay.
        Fuzz.roundTripJSON(ChallengeResponse.self, body, dates: true)
        Fuzz.roundTripJSON(SessionResponse.self, body, dates: true)
        Fuzz.roundTripJSON(RelayIdentity.self, body)
        Fuzz.roundTripJSON(RestoreParametersResponse.self, body)
        Fuzz.roundTripJSON(AccountResponse.self, body)
        Fuzz.roundTripJSON(DirectoryPageResponse.self, body)
        Fuzz.roundTripJSON(DirectoryEntry.self, body)
        Fuzz.roundTripJSON(SendReceipt.self, body, dates: true)
        Fuzz.roundTripJSON(MailboxResponse.self, body, dates: true)
        Fuzz.roundTripJSON(AcknowledgeResponse.self, body)
        Fuzz.roundTripJSON(APIErrorBody.self, body)
    }
}
