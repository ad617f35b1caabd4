import HTTPTypes
import Logging
import NIOCore
import WotsCore
import WotsStorage

/// `POST /v1/messages` answered from the connection's event loop (`InlineSendHandler`) instead of by the router's
/// task per request: the same checks (`MessageAcceptor.enqueueNow`), the same answers byte for byte, the same metrics
/// and logs as `SessionMiddleware`, `MessageRoutes` and `ErrorMiddleware` give it.
///
/// It takes only the plain case, and only what it can decide without suspending: a bearer session held in memory, a
/// `Content-Length` body of at most the request limit that `Envelope.scan` reads, no `Expect`, `Connection` or
/// `Transfer-Encoding`. Anything else is declined before anything was checked or counted, and the router answers it.
struct InlineSend: Sendable {
    static let route = "/v1/messages"

    /// What answers a send: status and headers (without `Date` and `Server`, which the handler adds as Hummingbird
    /// does), and the JSON body.
    struct Reply: Sendable {
        var status: HTTPResponse.Status
        var headerFields: HTTPFields
        var body: ByteBuffer
    }

    /// A request head this path takes: whose session it is and how long its body is.
    struct Admission: Sendable {
        var token: Token
        var length: Int
    }

    let authenticator: Authenticator
    let acceptor: MessageAcceptor
    let metrics: RelayMetrics
    let maximumRequestSize: Int
    let logger: Logger

    /// Nil hands the request to the router.
    func admit(_ head: HTTPRequest) -> Admission? {
        guard head.method == .post, head.path == Self.route else { return nil }
        let fields = head.headerFields
        guard fields[.transferEncoding] == nil, fields[.expect] == nil, fields[.connection] == nil,
            let length = fields[.contentLength].flatMap(Int.init), length > 0, length <= self.maximumRequestSize,
            let session = SessionMiddleware.bearer(in: fields),
            let token = self.authenticator.cachedToken(forSession: session)
        else { return nil }
        return Admission(token: token, length: length)
    }

    /// Starts answering a body read whole; `reply` is called once, on any thread.
    /// - Returns: false, having checked nothing, when the body is not an envelope `Envelope.scan` reads: the router
    ///   must answer it (its decoder names what is wrong).
    func answer(_ body: ByteBuffer, from token: Token, reply: @escaping @Sendable (Reply) -> Void) -> Bool {
        guard let envelope = Envelope.scan(Array(body.readableBytesView)) else { return false }
        do {
            switch try self.acceptor.enqueueNow(envelope, from: token) {
            case .taken(let write):
                self.reply(once: write, reply)
            case .unfinished(let finish):
                Task {
                    do {
                        self.reply(once: try await finish(), reply)
                    } catch {
                        reply(self.refused(error))
                    }
                }
            }
        } catch {
            reply(self.refused(error))
        }
        return true
    }

    private func reply(once write: PendingWrite<SendReceipt>, _ reply: @escaping @Sendable (Reply) -> Void) {
        write.whenSettled { outcome in
            switch outcome {
            case .success(let receipt):
                self.metrics.countRequest(route: Self.route, status: HTTPResponse.Status.accepted.code)
                let json = receipt.jsonBytes()
                reply(
                    Reply(
                        status: .accepted,
                        headerFields: JSONBody.headers(length: json.count),
                        body: ByteBuffer(bytes: json)
                    )
                )
            case .failure(let error):
                reply(self.refused(error))
            }
        }
    }

    private func refused(_ error: any Error) -> Reply {
        let refusal = ErrorMiddleware.record(error, route: Self.route, metrics: self.metrics, logger: self.logger)
        // An error body always encodes; should it not, the answer is still the refusal's status.
        let answer = (try? refusal.httpAnswer()) ?? (headerFields: JSONBody.headers(length: 0), body: ByteBuffer())
        return Reply(status: refusal.status, headerFields: answer.headerFields, body: answer.body)
    }
}
