import Foundation
import Hummingbird
import HummingbirdCore
import WotsCore
import WotsStorage

/// What every `/v1/stream` socket shares (schema/stream.md): the services a `StreamConnection` authenticates with and
/// answers client frames with, each by exactly one reply that carries its `ref`.
final class StreamSession: Sendable {
    let authenticator: Authenticator
    let configuration: RelayConfiguration
    let acceptor: MessageAcceptor
    /// Checks and passes on ephemeral group messages (`send_group` frames).
    let groupAcceptor: GroupMessageAcceptor
    let acknowledger: MailboxAcknowledger
    let mailboxes: any MailboxRepository
    let hub: DeliveryHub
    let bus: EventBus
    let metrics: RelayMetrics
    let clock: RelayClock

    init(
        authenticator: Authenticator,
        configuration: RelayConfiguration,
        acceptor: MessageAcceptor,
        groupAcceptor: GroupMessageAcceptor,
        acknowledger: MailboxAcknowledger,
        mailboxes: any MailboxRepository,
        hub: DeliveryHub,
        bus: EventBus,
        metrics: RelayMetrics,
        clock: RelayClock
    ) {
        self.authenticator = authenticator
        self.configuration = configuration
        self.acceptor = acceptor
        self.groupAcceptor = groupAcceptor
        self.acknowledger = acknowledger
        self.mailboxes = mailboxes
        self.hub = hub
        self.bus = bus
        self.metrics = metrics
        self.clock = clock
    }

    /// A courier for a socket just opened with `grant`.
    func makeCourier(
        for grant: SessionGrant,
        groups: (any GroupMailboxRepository)?,
        writer: StreamWriter
    ) -> MailCourier {
        MailCourier(
            session: grant,
            settings: self.deliverySettings,
            mailboxes: self.mailboxes,
            groups: groups,
            metrics: self.metrics,
            writer: writer,
            clock: self.clock
        )
    }

    /// Where group slots are read from, for a socket that asked for them.
    func groupMailboxes() throws -> any GroupMailboxRepository { try RelayStorage.groupMailboxes(in: self.mailboxes) }

    private var deliverySettings: DeliveryStateMachine.Settings {
        var settings = DeliveryStateMachine.Settings()
        settings.pingInterval = self.configuration.pingInterval
        settings.resyncInterval = self.configuration.resyncInterval
        return settings
    }

    /// Whether the stream was opened with `?groups=true`, asking for group slots beside 1:1 messages.
    /// - Throws: `invalid_argument` for a `groups` value other than `true` or `false`.
    static func wantsGroups(_ uri: URI) throws -> Bool {
        switch uri.queryParameters.get("groups") {
        case nil, "false": return false
        case "true": return true
        case let other?:
            throw WotsError(.invalidArgument, "groups must be true or false, got \"\(other.prefix(32))\"")
        }
    }

    /// Most replies one socket has waiting for their commits before it stops reading frames.
    static let repliesInFlight = 256

    /// A reply known now, or once the write it answers for committed (it never fails: a failure is an `error` frame).
    enum Reply {
        case now(RelayFrame)
        case later(PendingWrite<RelayFrame>)
    }

    /// Stands in for a reply whose making failed in a way no frame names; never expected.
    static let lostReply = RelayFrame.error(
        ref: nil,
        id: nil,
        code: .internalError,
        message: "the relay could not answer a frame"
    )

    /// The reply to a client frame as far as it can be made without suspending, on the socket's event loop.
    enum Answer {
        case reply(Reply)
        /// The rest must wait (for the database, or a frame that always does): `finish` makes the reply, and must
        /// be called in the socket's frame order.
        case unfinished(finish: @Sendable () async -> Reply)
    }

    /// The one reply to a client frame. Sends and acknowledgements are handed to the store here, in frame order, and
    /// answered once they committed.
    func reply(
        to message: StreamMessage,
        from token: Token,
        directoryFeed: DirectoryFeed,
        writer: StreamWriter
    ) async -> Reply {
        switch self.decodeOrRefuse(message) {
        case .success(let frame):
            return await self.reply(to: frame, from: token, directoryFeed: directoryFeed, writer: writer)
        case .failure(let refusal): return .now(refusal.frame)
        }
    }

    /// `reply(to:from:directoryFeed:writer:)` without suspending where it can: a send whose accounts are in memory
    /// and an acknowledgement are handed to the store at once.
    func answer(
        to message: StreamMessage,
        from token: Token,
        directoryFeed: DirectoryFeed,
        writer: StreamWriter
    ) -> Answer {
        let frame: ClientFrame
        switch self.decodeOrRefuse(message) {
        case .success(let decoded): frame = decoded
        case .failure(let refusal): return .reply(.now(refusal.frame))
        }
        var messageID: UUID?
        do {
            switch frame.body {
            case .ack(let keys):
                guard let write = try self.acknowledger.enqueueNow(keys, for: token) else { break }
                return .reply(self.acknowledged(write, frame: frame))
            case .send(let envelope):
                messageID = envelope.header.messageID
                switch try self.acceptor.enqueueNow(envelope, from: token) {
                case .taken(let write):
                    return .reply(self.accepted(write, frame: frame, id: envelope.header.messageID))
                case .unfinished(let finish):
                    return .unfinished {
                        do {
                            return self.accepted(try await finish(), frame: frame, id: envelope.header.messageID)
                        } catch {
                            return .now(self.errorFrame(for: error, ref: frame.ref, id: envelope.header.messageID))
                        }
                    }
                }
            default:
                break
            }
        } catch {
            return .reply(.now(self.errorFrame(for: error, ref: frame.ref, id: messageID)))
        }
        return .unfinished { await self.reply(to: frame, from: token, directoryFeed: directoryFeed, writer: writer) }
    }

    private func reply(
        to frame: ClientFrame,
        from token: Token,
        directoryFeed: DirectoryFeed,
        writer: StreamWriter
    ) async -> Reply {
        var messageID: UUID?
        do {
            switch frame.body {
            case .auth:
                throw WotsError(.alreadyAuthenticated, "this stream is authenticated already")
            case .ack(let keys):
                return self.acknowledged(try await self.acknowledger.enqueue(keys, for: token), frame: frame)
            case .send(let envelope):
                messageID = envelope.header.messageID
                let write = try await self.acceptor.enqueue(envelope, from: token)
                return self.accepted(write, frame: frame, id: envelope.header.messageID)
            case .sendEphemeral(let envelope):
                messageID = envelope.header.messageID
                let delivered = try await self.acceptor.passOn(envelope, from: token)
                return .now(.ephemeralAccepted(ref: frame.ref, id: envelope.header.messageID, delivered: delivered))
            case .sendGroupEphemeral(let request):
                messageID = request.body.header.messageID
                let delivered = try await self.groupAcceptor.passOn(request, from: token)
                return .now(.ephemeralAccepted(ref: frame.ref, id: request.body.header.messageID, delivered: delivered))
            case .subscribe(let directory):
                if directory { directoryFeed.start(writer: writer) } else { directoryFeed.stop() }
                return .now(.subscribed(ref: frame.ref, directory: directory))
            }
        } catch {
            return .now(self.errorFrame(for: error, ref: frame.ref, id: messageID))
        }
    }

    private func accepted(_ write: PendingWrite<SendReceipt>, frame: ClientFrame, id: UUID) -> Reply {
        self.later(write, ref: frame.ref, id: id) { receipt in
            .accepted(ref: frame.ref, id: receipt.id, seq: receipt.seq, receivedAt: receipt.receivedAt)
        }
    }

    private func acknowledged(_ write: PendingWrite<[MessageKey]>, frame: ClientFrame) -> Reply {
        self.later(write, ref: frame.ref, id: nil) { .acked(ref: frame.ref, messages: $0) }
    }

    /// The frame, or the `error` frame that refuses it.
    private func decodeOrRefuse(_ message: StreamMessage) -> Result<ClientFrame, DecodeRefusal> {
        do {
            return .success(try Self.decode(message))
        } catch {
            let refusal = Self.refusal(for: error)
            let head = Self.head(of: error)
            return .failure(
                DecodeRefusal(
                    frame: .error(ref: head?.ref, id: head?.messageID, code: refusal.code, message: refusal.message)
                )
            )
        }
    }

    private struct DecodeRefusal: Error {
        var frame: RelayFrame
    }

    /// The reply to a write once it committed: `success` of its outcome, or the `error` frame naming its refusal.
    private func later<Value: Sendable>(
        _ write: PendingWrite<Value>,
        ref: String?,
        id: UUID?,
        _ success: @escaping @Sendable (Value) -> RelayFrame
    ) -> Reply {
        let reply = PendingWrite<RelayFrame>()
        write.whenSettled { outcome in
            switch outcome {
            case .success(let value): reply.settle(.success(success(value)))
            case .failure(let error): reply.settle(.success(self.errorFrame(for: error, ref: ref, id: id)))
            }
        }
        return .later(reply)
    }

    private func errorFrame(for error: any Error, ref: String?, id: UUID?) -> RelayFrame {
        let refusal = Self.refusal(for: error)
        self.metrics.countError(code: refusal.code)
        return .error(ref: ref, id: id, code: refusal.code, message: refusal.message)
    }

    /// Decodes a client frame; a JSON shape error is `invalid_frame`, a bad value keeps its own code.
    static func decode(_ message: StreamMessage) throws -> ClientFrame {
        guard case .text(let bytes) = message else {
            throw FrameError(
                head: nil,
                error: WotsError(.invalidFrame, "binary frames are not supported; send JSON text")
            )
        }
        if let frame = ClientFrame.scanSend(bytes) ?? ClientFrame.scanAck(bytes) { return frame }
        let data = Data(bytes)
        do {
            return try JSONBody.decode(ClientFrame.self, from: data)
        } catch let error as WotsError {
            let head = try? WireCoding.makeDecoder().decode(ClientFrameHead.self, from: data)
            let code = error.code == .invalidJSON ? ErrorCode.invalidFrame : error.code
            throw FrameError(head: head, error: WotsError(code, error.reason))
        }
    }

    static func head(of error: any Error) -> ClientFrameHead? { (error as? FrameError)?.head }

    static func refusal(for error: any Error) -> Refusal { Refusal((error as? FrameError)?.error ?? error) }
}

/// A frame that could not be decoded, with what could be read of it so the refusal still names it.
private struct FrameError: Error {
    var head: ClientFrameHead?
    var error: WotsError
}
