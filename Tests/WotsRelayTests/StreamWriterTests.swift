import Foundation
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing
import WotsCore

@testable import WotsRelay

/// Frames written straight to a socket's channel at its event loop's next turn: in order, split like the WebSocket
/// library splits them, never after a close frame, replies in the order of the frames they answer, and what is
/// written meanwhile flushed once.
@Suite struct StreamWriterTests {
    static func writer(on channel: EmbeddedChannel, maximumFrameSize: Int = 1 << 16) -> StreamWriter {
        StreamWriter(channel: channel, maximumFrameSize: maximumFrameSize)
    }

    static func written(_ channel: EmbeddedChannel) throws -> [WebSocketFrame] {
        var frames: [WebSocketFrame] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) { frames.append(frame) }
        return frames
    }

    static func text(_ frame: WebSocketFrame) -> String { String(buffer: frame.unmaskedData) }

    static func accepted(_ ref: String) -> RelayFrame {
        .accepted(ref: ref, id: UUID(), seq: 1, receivedAt: Date(timeIntervalSince1970: 0))
    }

    @Test func aBatchIsWrittenInOrderAsTextFrames() throws {
        let channel = EmbeddedChannel()
        let writer = Self.writer(on: channel)
        let frames: [RelayFrame] = [Self.accepted("a"), .subscribed(ref: "b", directory: true), Self.accepted("c")]

        let written = writer.write(try writer.encode(frames))
        channel.embeddedEventLoop.run()
        try written.wait()

        let frameList = try Self.written(channel)
        #expect(frameList.map(\.opcode) == [.text, .text, .text])
        #expect(frameList.allSatisfy { $0.fin })
        let expected = try frames.map { String(decoding: try $0.jsonBytes(), as: UTF8.self) }
        #expect(frameList.map(Self.text) == expected)
    }

    @Test func textLongerThanTheFrameLimitIsSplitIntoContinuations() throws {
        let channel = EmbeddedChannel()
        let writer = Self.writer(on: channel, maximumFrameSize: 16)
        let frame = RelayFrame.error(ref: "r", id: nil, code: .invalidFrame, message: String(repeating: "x", count: 40))
        let json = String(decoding: try frame.jsonBytes(), as: UTF8.self)

        let done = writer.write(try writer.encode([frame]))
        channel.embeddedEventLoop.run()
        try done.wait()

        let written = try Self.written(channel)
        #expect(written.count == (json.utf8.count + 15) / 16)
        #expect(written.first?.opcode == .text)
        #expect(written.dropFirst().allSatisfy { $0.opcode == .continuation })
        #expect(written.map(\.fin) == Array(repeating: false, count: written.count - 1) + [true])
        #expect(written.map(\.data.readableBytes).dropLast().allSatisfy { $0 == 16 })
        #expect(written.map(Self.text).joined() == json)
    }

    @Test func nothingIsWrittenAfterACloseFrame() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(CloseFence())
        let writer = Self.writer(on: channel)
        let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer(bytes: [0x03, 0xE8]))

        let first = writer.write(try writer.encode([Self.accepted("before")]) + [close])
        channel.embeddedEventLoop.run()
        try first.wait()
        let late = writer.write(try writer.encode([Self.accepted("after")]))
        channel.embeddedEventLoop.run()

        #expect(throws: ChannelError.outputClosed) { try late.wait() }
        let written = try Self.written(channel)
        #expect(written.map(\.opcode) == [.text, .connectionClose])
        #expect(Self.text(written[0]).contains("\"before\""))
    }

    @Test func repliesAreWrittenInTheOrderOfTheFramesTheyAnswer() async throws {
        let channel = EmbeddedChannel()
        let replies = ReplyLine(writer: Self.writer(on: channel), limit: 8)
        let first = await replies.place()
        let second = await replies.place()
        let third = await replies.place()

        replies.answer(third, with: Self.accepted("3"))
        replies.answer(second, with: Self.accepted("2"))
        #expect(try Self.written(channel).isEmpty)
        replies.answer(first, with: Self.accepted("1"))
        channel.embeddedEventLoop.run()

        let refs = try Self.written(channel).map { Self.text($0) }.map { text in
            ["1", "2", "3"].first { text.contains("\"ref\":\"\($0)\"") }
        }
        #expect(refs == ["1", "2", "3"])
    }

    @Test func writesMadeBeforeTheLoopTurnsAreFlushedTogether() throws {
        let channel = EmbeddedChannel()
        let flushes = FlushCounter()
        try channel.pipeline.syncOperations.addHandler(flushes)
        let writer = Self.writer(on: channel)

        let first = writer.write(try writer.encode([Self.accepted("1")]))
        let second = writer.write(try writer.encode([Self.accepted("2"), Self.accepted("3")]))
        #expect(try Self.written(channel).isEmpty, "written before the loop's turn")
        channel.embeddedEventLoop.run()

        try first.wait()
        try second.wait()
        #expect(try Self.written(channel).count == 3)
        #expect(flushes.count == 1)
    }
}

/// Counts the flushes that pass it.
private final class FlushCounter: ChannelOutboundHandler {
    typealias OutboundIn = WebSocketFrame
    private(set) var count = 0

    func flush(context: ChannelHandlerContext) {
        self.count += 1
        context.flush()
    }
}
