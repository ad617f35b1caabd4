import Testing

@testable import WotsRelay

/// The byte-level readers the edge uses before the real decoders: where a header block ends, and what each
/// WebSocket frame header says, whatever way the bytes are split.
@Suite struct EdgeParsingTests {
    @Test func theHeaderBlockEndsAtTheFirstEmptyLine() {
        var scanner = RequestHeadScanner()
        let request = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\nBODY".utf8)
        #expect(scanner.scan(request) == request.count - 4)
        #expect(!scanner.asksForUpgrade)
    }

    @Test func aHeaderBlockSplitAnywhereEndsAtTheSamePlace() {
        let request = Array("GET / HTTP/1.1\r\nUpgrade: websocket\r\nHost: a\r\n\r\n".utf8)
        for split in 1..<request.count {
            var scanner = RequestHeadScanner()
            #expect(scanner.scan(request[..<split]) == nil)
            #expect(scanner.scan(request[split...]) == request.count - split)
            #expect(scanner.asksForUpgrade)
        }
    }

    @Test func anUpgradeIsSeenInAnyLetterCaseButNotInsideAnotherHeader() {
        var upper = RequestHeadScanner()
        _ = upper.scan(Array("GET / HTTP/1.1\r\nUPGRADE: websocket\r\n\r\n".utf8))
        #expect(upper.asksForUpgrade)
        var other = RequestHeadScanner()
        _ = other.scan(Array("GET / HTTP/1.1\r\nX-Upgrade: websocket\r\nVia: upgrade:\r\n\r\n".utf8))
        #expect(!other.asksForUpgrade)
    }

    @Test func leadingEmptyLinesDoNotEndTheHeader() {
        var scanner = RequestHeadScanner()
        #expect(scanner.scan(Array("\r\n\r\nGET / HTTP/1.1\r\n".utf8)) == nil)
        #expect(scanner.scan(Array("\r\n".utf8)) == 2)
    }

    @Test func frameHeadersAreReadAcrossEverySplit() {
        let bytes =
            WebSocketWire.frame(opcode: 0x1, payload: Array(repeating: 0x41, count: 300), isFinal: false)
            + WebSocketWire.frame(opcode: 0x9, payload: [1, 2])
            + WebSocketWire.frame(opcode: 0x0, payload: Array(repeating: 0x42, count: 70_000))
            + WebSocketWire.text("{}", masked: false)
        let expected: [(Bool, UInt8, Bool)] = [
            (false, 0x1, true), (true, 0x9, true), (true, 0x0, true), (true, 0x1, false),
        ]
        for split in [1, 2, 3, 5, 8, 13, 300, 307, 4_096] {
            var inspector = WebSocketFrameInspector()
            var headers: [WebSocketFrameInspector.FrameHeader] = []
            var start = 0
            while start < bytes.count {
                let end = min(start + split, bytes.count)
                let found = inspector.inspect(bytes[start..<end])
                for header in found { #expect(header.offset >= 0 && header.offset < end - start) }
                headers += found
                start = end
            }
            #expect(
                headers.map { [$0.isFinal ? 1 : 0, Int($0.opcode), $0.isMasked ? 1 : 0] }
                    == expected.map { [$0.0 ? 1 : 0, Int($0.1), $0.2 ? 1 : 0] },
                "split \(split)"
            )
        }
    }

    @Test func aFrameHeaderReportsWhereItsFrameStarts() {
        var inspector = WebSocketFrameInspector()
        let first = WebSocketWire.text("hi")
        let headers = inspector.inspect(first + WebSocketWire.text("x", masked: false))
        #expect(headers.map(\.offset) == [0, first.count])
        #expect(headers.map(\.isMasked) == [true, false])
    }
}
