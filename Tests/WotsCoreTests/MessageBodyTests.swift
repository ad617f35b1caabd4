import Foundation
import Testing
import WotsCore

@Suite struct MessageBodyTests {
    static let alice = try! Token(bytes: Array(repeating: 1, count: 16))

    static func attachment(caption: String? = "the view") throws -> AttachmentReference {
        try AttachmentReference(
            blob: Base32Sample.blob,
            key: Array(repeating: 9, count: 32),
            digest: Array(repeating: 7, count: 32),
            size: 200_000,
            name: "photo.jpg",
            mediaType: "image/jpeg",
            caption: caption
        )
    }

    static func everyType() throws -> [MessageBody] {
        [
            try MessageBody(.text("hello")),
            try MessageBody(.text("gone soon"), disappearAfter: 2),
            try MessageBody(.receipt(Receipt(status: .read, messages: [MessageKey(sender: alice, id: UUID())]))),
            try MessageBody(.typing(.started)),
            try MessageBody(.attachment(attachment())),
            try MessageBody.settings(disappearAfter: 3_600),
            try MessageBody(.profile(.preset(.dragon))),
            try MessageBody(.profile(.image(attachment(caption: nil)))),
            try MessageBody(.checkpoint(note: "relay.example\n42\nabc=\n")),
        ]
    }

    @Test func everyTypeRoundTripsThroughItsJSON() throws {
        for body in try Self.everyType() {
            #expect(try MessageBody(decoding: body.encoded()) == body, "\(body.content.type)")
        }
    }

    @Test func theJSONIsTheDocumentedShape() throws {
        let text = try MessageBody(.text("hi"), disappearAfter: 5).encoded()
        #expect(String(decoding: text, as: UTF8.self) == #"{"disappearAfter":5,"text":"hi","type":"text"}"#)
        let attachment = try JSONSerialization.jsonObject(
            with: Data(MessageBody(.attachment(Self.attachment())).encoded())
        )
        let fields = try #require(attachment as? [String: Any])
        #expect(fields["digest"] as? String == String(repeating: "07", count: 32))
        #expect(fields["key"] as? String == Data(repeating: 9, count: 32).base64EncodedString())
        #expect(fields["chunkSize"] as? Int == 65_536)
        #expect(fields["blob"] as? String == Base32Sample.blob)
    }

    static func header(sentAt: UInt64, expiresAt: UInt64) throws -> EnvelopeHeader {
        EnvelopeHeader(
            messageID: UUID(),
            sender: alice,
            senderFingerprint: try Fingerprint(bytes: Array(repeating: 2, count: 32)),
            recipient: alice,
            recipientFingerprint: try Fingerprint(bytes: Array(repeating: 4, count: 32)),
            sentAtMilliseconds: sentAt,
            expiresAtMilliseconds: expiresAt
        )
    }

    @Test func aTimedMessageMustExpireExactlyWhenItsContentSays() throws {
        let text = try MessageBody(.text("gone soon"), disappearAfter: 2)
        #expect(text.expiresAfter == .seconds(2))
        try text.checkExpiry(of: Self.header(sentAt: 1_000, expiresAt: 3_000))
        #expect(throws: WotsError(.malformed, "")) {
            try text.checkExpiry(of: Self.header(sentAt: 1_000, expiresAt: 0))
        }
    }

    @Test func aSettingsMessageCarriesTheNewTimerButNeverExpiresItself() throws {
        let settings = try MessageBody.settings(disappearAfter: 3_600)
        #expect(settings.expiresAfter == nil)
        try settings.checkExpiry(of: Self.header(sentAt: 1_000, expiresAt: 0))
        #expect(throws: WotsError(.malformed, "")) {
            try settings.checkExpiry(of: Self.header(sentAt: 1_000, expiresAt: 3_601_000))
        }
    }

    @Test func anUnknownTypeIsKeptAsUnsupportedAndUnknownKeysAreIgnored() throws {
        let body = try MessageBody(decoding: Array(#"{"type":"poll","question":"lunch?","extra":[1]}"#.utf8))
        #expect(body.content == .unsupported(type: "poll"))
        #expect(!body.content.wantsReceipts)
        let text = try MessageBody(decoding: Array(#"{"type":"text","text":"hi","reactions":{}}"#.utf8))
        #expect(text.content == .text("hi"))
    }

    @Test(arguments: [
        "not json",
        "[]",
        #"{"text":"no type"}"#,
        #"{"type":"text"}"#,
        #"{"type":"receipt","status":"seen","messages":[]}"#,
        #"{"type":"receipt","status":"read","messages":[]}"#,
        #"{"type":"typing","state":"thinking"}"#,
        #"{"type":"settings"}"#,
        #"{"type":"text","text":"hi","disappearAfter":31536001}"#,
        #"{"type":"profile","avatar":{"preset":"unicorn"}}"#,
        #"{"type":"attachment","blob":"x","key":"","digest":"","size":1,"chunkSize":65536,"name":"a","mediaType":"b"}"#,
        #"{"type":""}"#,
    ])
    func malformedContentIsRefusedAsMalformed(json: String) throws {
        #expect(throws: WotsError(.malformed, "")) { try MessageBody(decoding: Array(json.utf8)) }
    }

    @Test func aReceiptAndAShortTextBothFitTheFirstPaddingBucket() throws {
        let receipt = try MessageBody(
            .receipt(Receipt(status: .delivered, messages: [MessageKey(sender: Self.alice, id: UUID())]))
        )
        #expect(try receipt.encoded().count < 255)
        #expect(try MessageBody(.text("see you at eight")).encoded().count < 255)
    }

    @Test func onlyWhatAPersonReadsAsksForReceipts() throws {
        #expect(
            try Self.everyType().filter(\.content.wantsReceipts).map(\.content.type) == ["text", "text", "attachment"]
        )
    }

    @Test func attachmentSizesCountATagPerChunk() throws {
        let reference = try Self.attachment()
        #expect(reference.chunkCount == 4)
        #expect(reference.encryptedSize == 200_000 + 64)
        var empty = reference
        empty.size = 0
        #expect(empty.chunkCount == 1)
    }
}

enum Base32Sample {
    static let blob = "aaaqeayeaudaocajbifqydiob4"
}

@Suite struct LogHeadGossipTests {
    @Test func everyBodyMayCarryALogHeadAndAReceiptWithOneStillFitsTheFirstBucket() throws {
        let head = try LogHead(size: 1_234_567, root: Array(repeating: 0xAB, count: 32))
        let receipt = try MessageBody(
            .receipt(Receipt(status: .delivered, messages: [MessageKey(sender: MessageBodyTests.alice, id: UUID())])),
            disappearAfter: 604_800,
            log: head
        )
        #expect(try MessageBody(decoding: receipt.encoded()) == receipt)
        #expect(try receipt.encoded().count < 255)
        #expect(throws: WotsError(.malformed, "")) {
            try MessageBody(decoding: Array(#"{"type":"text","text":"x","log":{"size":1,"root":"AAAA"}}"#.utf8))
        }
    }
}
