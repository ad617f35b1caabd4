import Foundation
import FuzzSupport
import WotsCore

/// Frames on `/v1/stream` (schema/stream.md): a client frame as the relay's `StreamSession.decode` reads a text
/// message (its scanner for plain `send` frames must read exactly what JSONDecoder reads), with the `ClientFrameHead` it
/// falls back to for naming a refused frame; and a relay frame as `StreamClient` reads it, which the relay's hand-written
/// JSON must spell exactly as JSONEncoder does.
enum StreamFramesFuzzer {
    static func check(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let message = Data(text.utf8)
        let head = try? WireCoding.makeDecoder().decode(ClientFrameHead.self, from: message)
        if let frame = Fuzz.roundTripJSON(ClientFrame.self, message) {
            Fuzz.require(frame.ref.map { $0.utf8.count <= ClientFrame.maximumReferenceSize } ?? true, "ref too long")
            Fuzz.require(head?.ref == frame.ref, "ClientFrameHead reads another ref than ClientFrame")
            if case .send(let envelope) = frame.body {
                Fuzz.require(head?.messageID == envelope.header.messageID, "ClientFrameHead reads another message id")
            }
        }
        if let scanned = ClientFrame.scanSend(Array(message)) {
            let decoded = try? WireCoding.makeDecoder().decode(ClientFrame.self, from: message)
            Fuzz.require(scanned == decoded, "the send-frame scanner reads another frame than JSONDecoder")
        }
        if let frame = Fuzz.roundTripJSON(RelayFrame.self, message, dates: true) {
            let handWritten = try? frame.jsonBytes()
            let encoded = try? WireCoding.makeEncoder().encode(frame)
            Fuzz.require(handWritten == encoded.map(Array.init), "a hand-written frame differs from JSONEncoder's")
        }
    }
}
