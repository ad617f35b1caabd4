import Foundation
import Testing
import WotsCore

/// The relay reads `ack` frames (one per delivered message) with the same plain-JSON scanner as `send` frames: what it
/// reads must be exactly the frame Foundation's decoder reads, and what it cannot read it must leave to Foundation.
@Suite struct ScannedAckFrameTests {
    private static func foundation(_ bytes: [UInt8]) -> ClientFrame? {
        try? WireCoding.makeDecoder().decode(ClientFrame.self, from: Data(bytes))
    }

    private static let sender = try! Token(bytes: Array(0..<16))

    private static func ackFrame(keys: Int = 2, ref: String? = "a7") -> [UInt8] {
        let frame = ClientFrame(.ack((0..<keys).map { _ in MessageKey(sender: Self.sender, id: UUID()) }), ref: ref)
        return Array(try! WireCoding.makeEncoder().encode(frame))
    }

    @Test(arguments: [0, 1, 2, 50])
    func anAckFrameAsClientsWriteItIsReadAsFoundationReadsIt(keys: Int) throws {
        for ref in ["a7", nil] as [String?] {
            let bytes = Self.ackFrame(keys: keys, ref: ref)
            let scanned = try #require(ClientFrame.scanAck(bytes))
            #expect(scanned == Self.foundation(bytes))
        }
    }

    @Test func anUppercaseIdIsTheSameMessage() throws {
        let id = UUID()
        let text = #"{"type":"ack","ref":"1","messages":[{"sender":"SENDER","id":"ID"}]}"#
            .replacingOccurrences(of: "SENDER", with: Self.sender.description)
            .replacingOccurrences(of: "ID", with: id.uuidString.uppercased())
        let scanned = try #require(ClientFrame.scanAck(Array(text.utf8)))
        #expect(scanned == ClientFrame(.ack([MessageKey(sender: Self.sender, id: id)]), ref: "1"))
        #expect(scanned == Self.foundation(Array(text.utf8)))
    }

    @Test(arguments: [
        #"{"type":"ack","messages":[{"sender":"S","id":"I","x":1}]}"#,
        #"{"type":"ack","messages":[{"sender":"S","sender":"S","id":"I"}]}"#,
        #"{"type":"ack","messages":[{"sender":"S"}]}"#,
        #"{"type":"ack","messages":[{"sender":"S","id":"I"},]}"#,
        #"{"type":"ack","messages":{"sender":"S","id":"I"}}"#,
        #"{"type":"ack","messages":[{"sender":"S","id":"I"}],"messages":[]}"#,
        #"{"type":"ack","ref":"r\"","messages":[]}"#,
        #"{"type":"ack","ref":"0123456789012345678901234567890123456789012345678901234567890123456789","messages":[]}"#,
        #"{"type":"ack"}"#,
        #"{"type":"ack","messages":[]} x"#,
        #"{"type":"send","messages":[]}"#,
        #"{"type":"ack","messages":[{"sender":"S","id":"{I}"}]}"#,
        #"{"type":"ack","messages":[{"sender":"S","id":"I0"}]}"#,
        #"{"type":"ack","messages":[{"sender":"AAAAAAAAAAAAAAAAAAAAAAAAAA","id":"I"}]}"#,
    ])
    func anythingOutsideThePlainSubsetOrNotAnAckIsLeftToFoundation(template: String) {
        let text = template.replacingOccurrences(of: "\"S\"", with: "\"\(Self.sender)\"")
            .replacingOccurrences(of: "I", with: UUID().lowercasedString)
        #expect(ClientFrame.scanAck(Array(text.utf8)) == nil, "\(text)")
    }

    /// Thousands of random one-byte changes: the scanner may refuse any of them, but one it reads Foundation must
    /// read as the same frame.
    @Test func whatTheScannerReadsFromAMangledFrameFoundationReadsTheSame() {
        let original = Self.ackFrame(keys: 2)
        var read = 0
        for bytes in oneByteMutations(of: original, count: 5_000) {
            guard let scanned = ClientFrame.scanAck(bytes) else { continue }
            read += 1
            #expect(scanned == Self.foundation(bytes), "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(read > 0)
    }
}
