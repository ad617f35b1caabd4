import Foundation
import Testing
import WotsCore

/// Dates on the wire are ISO 8601 with milliseconds; one read from the wire is written back unchanged. Found by
/// fuzz-stream-frames: Foundation's ISO 8601 style truncates, so `.061` parsed (a hair below 61 ms) was written
/// `.060`, and each relay or client that re-encoded a date moved it back by a millisecond.
@Suite struct WireDateTests {
    private func reencoded(_ text: String) throws -> String {
        let date = try WireCoding.makeDecoder().decode(Date.self, from: Data("\"\(text)\"".utf8))
        return String(decoding: try WireCoding.makeEncoder().encode(date), as: UTF8.self)
    }

    @Test(arguments: [
        "2026-11-23T10:00:00.061Z", "2026-11-23T10:00:00.001Z", "2026-11-23T10:00:00.123Z",
        "2026-11-23T10:00:00.999Z", "2026-11-23T10:00:00.000Z", "1969-12-31T23:59:59.999Z",
        // Far from 1970 a date's Double holds a whole millisecond only to within microseconds (fuzz-stream-frames).
        "2521-11-23T10:00:00.143Z", "2200-01-01T00:00:00.001Z", "9999-12-31T23:59:59.999Z",
    ])
    func aDateReadFromTheWireIsWrittenBackUnchanged(text: String) throws {
        #expect(try self.reencoded(text) == "\"\(text)\"")
    }

    @Test func aDateWithoutFractionIsWrittenWithMilliseconds() throws {
        #expect(try self.reencoded("2026-11-23T10:00:00Z") == "\"2026-11-23T10:00:00.000Z\"")
    }

    @Test func wholeMillisecondsStayTheSameMillisecond() throws {
        for milliseconds in [1, 7, 61, 123, 999] {
            let date = Date(timeIntervalSince1970: 1_795_433_400 + Double(milliseconds) / 1000)
            let text = String(decoding: try WireCoding.makeEncoder().encode(date), as: UTF8.self)
            #expect(text == "\"2026-11-23T11:30:00.\(String(1000 + milliseconds).dropFirst())Z\"")
        }
    }

    @Test func subMillisecondsAreDroppedAsTheStoresDropThem() throws {
        let date = Date(timeIntervalSince1970: 1_795_433_400.0619)
        #expect(
            String(decoding: try WireCoding.makeEncoder().encode(date), as: UTF8.self) == "\"2026-11-23T11:30:00.061Z\""
        )
    }

    /// The second spelling is what fuzz-json-bodies saved, in a `SendReceipt`: Foundation reads `002.13` seconds.
    @Test(arguments: ["2026-11-23T10:00:00.13Z", "2026-11-23T10:00:002.13Z", "2026-11-23T10:00:00.0615Z"])
    func aDateWrittenOnceIsWrittenTheSameEveryTimeAfter(text: String) throws {
        let once = try self.reencoded(text)
        #expect(try self.reencoded(String(once.dropFirst().dropLast())) == once)
    }

    /// The input fuzz-stream-frames saved: an `accepted` frame whose date moved when encoded again.
    @Test func theFuzzedAcceptedFrameRoundTrips() throws {
        let frame = Data(
            #"{"id":"3F2504E0-4F89-41D3-9A0C-0305E82C3301","receivedAt":"2026-11-23T10:00:00.061Z","ref":"2","seq":7,"type":"accepted"}"#
                .utf8
        )
        let decoded = try WireCoding.makeDecoder().decode(RelayFrame.self, from: frame)
        let encoded = try WireCoding.makeEncoder().encode(decoded)
        let again = try WireCoding.makeDecoder().decode(RelayFrame.self, from: encoded)
        #expect(try WireCoding.makeEncoder().encode(again) == encoded)
        #expect(String(decoding: encoded, as: UTF8.self).contains(#""receivedAt":"2026-11-23T10:00:00.061Z""#))
    }
}
