import Foundation
import Synchronization
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

/// The real binary over real sockets: durability across `kill -9`, clean SIGTERM, two processes on one PostgreSQL.
@Suite(.serialized) struct RelayProcessTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wots-relay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    func registerAndLogin(_ user: TestIdentity, on relay: RelayProcess) async throws -> String {
        let (_, identity) = try await relay.request("/v1/relay")
        let relayID = try WireCoding.makeDecoder().decode(RelayIdentity.self, from: identity).relayID
        let registration = RegistrationRequest(
            token: user.token,
            nickname: user.nickname,
            publicKeys: user.publicKeys,
            privateRecord: try user.privateRecord(),
            proof: try user.registrationProof(relayID: Array(Data(base64Encoded: relayID)!)).base64
        )
        let (status, _) = try await relay.request(
            "/v1/register",
            method: "POST",
            body: try WireCoding.makeEncoder().encode(registration)
        )
        #expect(status == 201 || status == 409)
        return try await self.login(user, on: relay)
    }

    func challenge(on relay: RelayProcess) async throws -> ChallengeResponse {
        let (_, challengeData) = try await relay.request("/v1/auth/challenge", method: "POST")
        return try WireCoding.makeDecoder().decode(ChallengeResponse.self, from: challengeData)
    }

    func deleteAccount(_ user: TestIdentity, session: String, on relay: RelayProcess) async throws -> Int {
        let challenge = try await self.challenge(on: relay)
        let signature = try user.identity.signDeletion(
            relayID: Array(Data(base64Encoded: challenge.relayID)!),
            nonce: Array(Data(base64Encoded: challenge.nonce)!),
            token: user.token
        )
        let body = try WireCoding.makeEncoder().encode(
            DeletionRequest(nonce: challenge.nonce, signature: signature.base64)
        )
        return try await relay.request("/v1/account/delete", method: "POST", session: session, body: body).0
    }

    func login(_ user: TestIdentity, on relay: RelayProcess) async throws -> String {
        let decoder = WireCoding.makeDecoder()
        let challenge = try await self.challenge(on: relay)
        let signature = try user.identity.signAuthentication(
            relayID: Array(Data(base64Encoded: challenge.relayID)!),
            nonce: Array(Data(base64Encoded: challenge.nonce)!),
            token: user.token
        )
        let body = try WireCoding.makeEncoder().encode(
            SessionRequest(token: user.token, nonce: challenge.nonce, signature: signature.base64)
        )
        let (status, data) = try await relay.request("/v1/auth/session", method: "POST", body: body)
        #expect(status == 200)
        return try decoder.decode(SessionResponse.self, from: data).session
    }

    @Test func everyAcknowledgedMessageSurvivesKill9AndIsDeliveredOnce() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = "sqlite:\(folder.path)/relay.sqlite"
        let first = try await RelayProcess.start(
            database: database,
            logFile: folder.appendingPathComponent("first.log")
        )
        let aliceSession = try await self.registerAndLogin(alice, on: first)
        _ = try await self.registerAndLogin(bob, on: first)

        let envelopes = try (0..<1_000).map { try seal("message \($0)", from: alice, to: bob) }
        let accepted = Mutex<Set<UUID>>([])
        let sender = Task {
            for envelope in envelopes {
                guard
                    let (status, _) = try? await first.request(
                        "/v1/messages",
                        method: "POST",
                        session: aliceSession,
                        body: try WireCoding.makeEncoder().encode(envelope)
                    )
                else { return }
                if status == 202 { _ = accepted.withLock { $0.insert(envelope.header.messageID) } }
            }
        }
        while accepted.withLock({ $0.count }) < 40 { try await Task.sleep(for: .milliseconds(5)) }
        await first.kill9()
        await sender.value
        let acknowledged = accepted.withLock { $0 }
        #expect(acknowledged.count >= 40)
        #expect(acknowledged.count < envelopes.count, "the relay was killed after the last send, not mid-stream")

        let second = try await RelayProcess.start(
            database: database,
            logFile: folder.appendingPathComponent("second.log")
        )
        let bobSession = try await self.login(bob, on: second)
        var delivered: [UUID] = []
        var after: Int64 = 0
        while true {
            let (status, data) = try await second.request("/v1/messages?after=\(after)&limit=500", session: bobSession)
            #expect(status == 200)
            let messages = try WireCoding.makeDecoder().decode(MailboxResponse.self, from: data).messages
            if messages.isEmpty { break }
            for message in messages {
                let opened = try message.envelope.open(
                    as: bob.token,
                    identity: bob.identity,
                    senderKeys: alice.publicKeys
                )
                delivered.append(opened.messageID)
                after = message.seq
            }
        }
        #expect(Set(delivered).count == delivered.count, "the relay stored a message twice")
        #expect(acknowledged.isSubset(of: Set(delivered)), "a message that got 202 was lost")
        #expect(await second.terminate() == 0)
    }

    @Test func sigtermStopsTheRelayCleanly() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let relay = try await RelayProcess.start(
            database: "sqlite:\(folder.path)/relay.sqlite",
            logFile: folder.appendingPathComponent("relay.log")
        )
        let (status, _) = try await relay.request("/healthz")
        #expect(status == 200)
        #expect(await relay.terminate() == 0)
    }

    @Test func sighupWithoutTLSLeavesTheRelayRunning() async throws {
        // `systemctl reload wots-relay` sends SIGHUP whether or not the relay serves TLS.
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let relay = try await RelayProcess.start(
            database: "sqlite:\(folder.path)/relay.sqlite",
            logFile: folder.appendingPathComponent("relay.log")
        )
        relay.send(signal: SIGHUP)
        #expect(try await relay.waitForLog(containing: "SIGHUP: nothing to reload"))
        let (status, _) = try await relay.request("/healthz")
        #expect(status == 200)
        #expect(await relay.terminate() == 0)
    }

    @Test func systemdHearsReadyOnceTheRelayServesAndStoppingOnSigterm() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let socketName = "@wots-notify-\(UUID().uuidString)"
        let listener = try DatagramListener(name: socketName)
        defer { listener.close() }
        let relay = try await RelayProcess.start(
            database: "sqlite:\(folder.path)/relay.sqlite",
            logFile: folder.appendingPathComponent("relay.log"),
            environment: ["NOTIFY_SOCKET": socketName]
        )
        #expect(try listener.receive(within: .seconds(30)) == "READY=1")
        let (status, _) = try await relay.request("/readyz")
        #expect(status == 200)
        #expect(await relay.terminate() == 0)
        #expect(try listener.receive(within: .seconds(5)) == "STOPPING=1")
    }

    /// Two relay processes on one fresh PostgreSQL database, both stopped cleanly afterwards.
    func withTwoRelaysOnPostgres(_ body: (RelayProcess, RelayProcess) async throws -> Void) async throws {
        let url = try #require(
            ProcessInfo.processInfo.environment["WOTS_TEST_POSTGRES_URL"],
            "WOTS_TEST_POSTGRES_URL is not set: run the tests through scripts/with-postgres.sh (make test)"
        )
        let database = try await TemporaryPostgresDatabase.create(baseURL: url)
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let nodeA = try await RelayProcess.start(
            database: database.url,
            logFile: folder.appendingPathComponent("a.log")
        )
        let nodeB = try await RelayProcess.start(
            database: database.url,
            logFile: folder.appendingPathComponent("b.log")
        )
        try await body(nodeA, nodeB)
        #expect(await nodeA.terminate() == 0)
        #expect(await nodeB.terminate() == 0)
        try await database.drop()
    }

    @Test func aRecipientOnOneRelayReceivesLiveWhatWasPostedToAnother() async throws {
        try await self.withTwoRelaysOnPostgres { nodeA, nodeB in
            let aliceSession = try await self.registerAndLogin(alice, on: nodeA)
            _ = try await self.registerAndLogin(bob, on: nodeA)
            let bobSession = try await self.login(bob, on: nodeB)

            let socket = try await TestSocket.connect(port: nodeB.port, headerSession: bobSession)
            #expect(await socket.next() == .frame(.ready(ref: nil, token: bob.token)))
            let envelope = try seal("across relays", from: alice, to: bob)
            let (status, _) = try await nodeA.request(
                "/v1/messages",
                method: "POST",
                session: aliceSession,
                body: try WireCoding.makeEncoder().encode(envelope)
            )
            #expect(status == 202)
            // Well inside the 30-second resync of a relay on PostgreSQL: only NOTIFY can have woken the socket.
            let frame = await socket.next(timeout: .seconds(5))
            #expect(frame.frame?.deliveredMessage?.envelope == envelope)
            await socket.close()
        }
    }

    @Test func aGroupSlotPostedToOneRelayReachesAGroupsSocketOnAnother() async throws {
        try await self.withTwoRelaysOnPostgres { nodeA, nodeB in
            let aliceSession = try await self.registerAndLogin(alice, on: nodeA)
            _ = try await self.registerAndLogin(bob, on: nodeA)
            let bobSession = try await self.login(bob, on: nodeB)

            let socket = try await TestSocket.connect(
                port: nodeB.port,
                headerSession: bobSession,
                query: "?groups=true"
            )
            #expect(await socket.next() == .frame(.ready(ref: nil, token: bob.token)))
            let sealed = try sealForGroup("across relays", from: alice, to: [bob])
            let (status, _) = try await nodeA.request(
                "/v1/group-messages",
                method: "POST",
                session: aliceSession,
                body: try WireCoding.makeEncoder().encode(GroupSendRequest(body: sealed.envelope, slots: sealed.slots))
            )
            #expect(status == 202)
            let frame = await socket.next(timeout: .seconds(5))
            #expect(frame.frame?.deliveredGroupMessage?.body == sealed.envelope, "woken by NOTIFY, not the 30 s resync")
            await socket.close()
        }
    }

    @Test func anAccountDeletedOnOneRelayIsGoneAtOnceOnAnother() async throws {
        try await self.withTwoRelaysOnPostgres { nodeA, nodeB in
            let aliceOnB = try await self.registerAndLogin(alice, on: nodeB)
            let bobOnA = try await self.registerAndLogin(bob, on: nodeA)
            let bobOnB = try await self.login(bob, on: nodeB)
            // Node B now holds bob's session and directory entry in memory.
            #expect(try await nodeB.request("/v1/messages", session: bobOnB).0 == 200)
            let first = try WireCoding.makeEncoder().encode(try seal("before", from: alice, to: bob))
            #expect(try await nodeB.request("/v1/messages", method: "POST", session: aliceOnB, body: first).0 == 202)

            #expect(try await self.deleteAccount(bob, session: bobOnA, on: nodeA) == 204)

            let deadline = ContinuousClock.now + .seconds(1)
            var sessionStatus = 0
            repeat {
                sessionStatus = try await nodeB.request("/v1/messages", session: bobOnB).0
                if sessionStatus == 401 { break }
                try await Task.sleep(for: .milliseconds(20))
            } while ContinuousClock.now < deadline
            #expect(sessionStatus == 401, "bob's session still works on the other relay a second after his deletion")
            let after = try WireCoding.makeEncoder().encode(try seal("after", from: alice, to: bob))
            #expect(try await nodeB.request("/v1/messages", method: "POST", session: aliceOnB, body: after).0 == 404)
        }
    }
}
