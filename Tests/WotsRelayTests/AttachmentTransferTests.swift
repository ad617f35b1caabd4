import Foundation
import Testing
import WotsClient
import WotsCore
import WotsCrypto
import WotsTesting

/// Attachments through the real `wots-relay` binary over loopback, on SQLite and on PostgreSQL: encrypted, uploaded,
/// resumed, downloaded, checked, saved, acknowledged and gone.
@Suite(.serialized) struct AttachmentTransferTests {
    enum Backend: String, CaseIterable, Sendable {
        case sqlite, postgres
    }

    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let mallory = TestIdentities.mallory

    /// A relay on a fresh database of `backend`, with a folder for files; torn down after `body`.
    struct World: Sendable {
        var relay: RelayProcess
        var database: String
        var folder: URL
        /// Runs SQL on the relay's database, as an attacker with access to it would.
        var tamper: @Sendable (String) async throws -> Void
    }

    func withRelay(
        _ backend: Backend,
        arguments: [String] = [],
        _ body: (World) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wots-transfer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var postgres: TemporaryPostgresDatabase?
        let database: String
        switch backend {
        case .sqlite:
            database = "sqlite:\(folder.path)/relay.sqlite"
        case .postgres:
            let url = try #require(
                ProcessInfo.processInfo.environment["WOTS_TEST_POSTGRES_URL"],
                "WOTS_TEST_POSTGRES_URL is not set: run the tests through scripts/with-postgres.sh (make test)"
            )
            postgres = try await TemporaryPostgresDatabase.create(baseURL: url)
            database = postgres!.url
        }
        let relay = try await RelayProcess.start(
            database: database,
            logFile: folder.appendingPathComponent("relay.log"),
            extraArguments: arguments
        )
        let tamper: @Sendable (String) async throws -> Void = { sql in
            switch backend {
            case .sqlite: try await Self.run(["sqlite3", "\(folder.path)/relay.sqlite", sql])
            case .postgres: try await Self.run(["psql", database, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql])
            }
        }
        do {
            try await body(World(relay: relay, database: database, folder: folder, tamper: tamper))
        } catch {
            _ = await relay.terminate()
            try? await postgres?.drop()
            throw error
        }
        _ = await relay.terminate()
        try await postgres?.drop()
    }

    static func run(_ arguments: [String]) async throws {
        let status = try await offThePool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        guard status == 0 else {
            throw ProcessError(description: "\(arguments[0]) failed with status \(status)")
        }
    }

    /// A client logged in as `user` (registered first when `register`).
    func client(_ user: TestIdentity, at relay: RelayProcess, register: Bool = false) async throws -> RelayClient {
        let client = try RelayClient(baseURL: relay.baseURL)
        if register {
            let relayID = try await client.relayID()
            let request = RegistrationRequest(
                token: user.token,
                nickname: user.nickname,
                publicKeys: user.publicKeys,
                privateRecord: try user.privateRecord(),
                proof: try RegistrationProof.sign(
                    relayID: relayID,
                    token: user.token,
                    nickname: user.nickname,
                    publicKeys: user.publicKeys,
                    identity: user.identity
                ).base64
            )
            _ = try await client.register(request)
        }
        await client.authenticate(as: user.token, identity: user.identity)
        return client
    }

    /// Encrypts a new random file of `size` bytes and announces its blob for bob.
    func prepare(size: Int, in folder: URL, by sender: RelayClient) async throws
        -> (plaintext: [UInt8], blobFile: String, download: AttachmentDownload)
    {
        let plaintext = SecureRandom.bytes(size)
        let plainFile = folder.appendingPathComponent("plain-\(UUID().uuidString)").path
        let blobFile = plainFile + ".blob"
        try Data(plaintext).write(to: URL(fileURLWithPath: plainFile))
        let cipher = try AttachmentCipher.random()
        let sealed = try cipher.encrypt(fileAt: plainFile, to: blobFile)
        let status = try await sender.createBlob(size: sealed.encryptedSize, recipients: [bob.token])
        let download = AttachmentDownload(
            blob: status.id,
            key: cipher.key,
            digest: sealed.digest,
            size: sealed.size,
            name: "report.pdf"
        )
        return (plaintext, blobFile, download)
    }

    @Test(arguments: Backend.allCases)
    func twentyMebibytesArriveByteForByteAndTheBlobIsGoneOnceFetched(backend: Backend) async throws {
        try await self.withRelay(backend) { world in
            let sender = try await self.client(alice, at: world.relay, register: true)
            let recipient = try await self.client(bob, at: world.relay, register: true)
            let (plaintext, blobFile, download) = try await self.prepare(
                size: 20 << 20,
                in: world.folder,
                by: sender
            )
            try await sender.uploadBlob(download.blob, from: blobFile)

            let saver = AttachmentSaver(folder: world.folder.appendingPathComponent("downloads"))
            let saved = try await saver.save(download, from: recipient)

            #expect(saved.lastPathComponent == "report.pdf")
            #expect(Array(try Data(contentsOf: saved)) == plaintext)
            await #expect(throws: WotsError(.unknownBlob, "")) { _ = try await recipient.blobOffset(download.blob) }
            await #expect(throws: WotsError(.unknownBlob, "")) { _ = try await sender.blobOffset(download.blob) }
        }
    }

    @Test(arguments: Backend.allCases)
    func aBlobChangedOnTheRelayIsCorruptAndNothingIsSaved(backend: Backend) async throws {
        try await self.withRelay(backend) { world in
            let sender = try await self.client(alice, at: world.relay, register: true)
            let recipient = try await self.client(bob, at: world.relay, register: true)
            let (_, blobFile, download) = try await self.prepare(size: 300_000, in: world.folder, by: sender)
            try await sender.uploadBlob(download.blob, from: blobFile)
            switch backend {
            case .sqlite:
                try await world.tamper("UPDATE blob_chunks SET data = randomblob(length(data)) WHERE chunk_offset = 0")
            case .postgres:
                try await world.tamper("UPDATE blob_chunks SET data = set_byte(data, 100, get_byte(data, 100) # 1)")
            }

            let downloads = world.folder.appendingPathComponent("downloads")
            let error = await #expect(throws: WotsError.self) {
                _ = try await AttachmentSaver(folder: downloads).save(download, from: recipient)
            }
            #expect(error?.code == .attachmentCorrupt)
            #expect(try FileManager.default.contentsOfDirectory(atPath: downloads.path).isEmpty)
            #expect(try await recipient.blobOffset(download.blob).offset > 0, "a corrupt blob is not acknowledged")
        }
    }

    @Test(arguments: Backend.allCases)
    func anUploadCutByAKilledRelayResumesFromTheOffsetItStored(backend: Backend) async throws {
        try await self.withRelay(backend) { world in
            let sender = try await self.client(alice, at: world.relay, register: true)
            _ = try await self.client(bob, at: world.relay, register: true)
            let (plaintext, blobFile, download) = try await self.prepare(
                size: 3 << 20,
                in: world.folder,
                by: sender
            )
            let blob = Array(try Data(contentsOf: URL(fileURLWithPath: blobFile)))
            let chunk = RelayClient.uploadChunkSize
            #expect(try await sender.uploadChunk(Array(blob[..<chunk]), to: download.blob, at: 0) == Int64(chunk))
            #expect(
                try await sender.uploadChunk(Array(blob[chunk..<(2 * chunk)]), to: download.blob, at: Int64(chunk))
                    == Int64(2 * chunk)
            )
            await world.relay.kill9()

            let restarted = try await RelayProcess.start(
                database: world.database,
                logFile: world.folder.appendingPathComponent("restarted.log")
            )
            do {
                let resumed = try await self.client(alice, at: restarted)
                let offset = try await resumed.blobOffset(download.blob)
                #expect(offset.offset == Int64(2 * chunk) && offset.length == Int64(blob.count))
                await #expect(throws: WotsError(.blobOffsetMismatch, "")) {
                    _ = try await resumed.uploadChunk(Array(blob[..<chunk]), to: download.blob, at: 0)
                }
                try await resumed.uploadBlob(download.blob, from: blobFile)

                let recipient = try await self.client(bob, at: restarted)
                let saved = try await AttachmentSaver(folder: world.folder.appendingPathComponent("downloads"))
                    .save(download, from: recipient)
                #expect(Array(try Data(contentsOf: saved)) == plaintext)
            } catch {
                _ = await restarted.terminate()
                throw error
            }
            _ = await restarted.terminate()
        }
    }

    @Test(arguments: Backend.allCases)
    func theQuotaIsEnforcedAndAStrangerFindsNoBlob(backend: Backend) async throws {
        try await self.withRelay(backend, arguments: ["--max-blob-size", "1MiB", "--blob-quota", "2MiB"]) { world in
            let sender = try await self.client(alice, at: world.relay, register: true)
            _ = try await self.client(bob, at: world.relay, register: true)
            let stranger = try await self.client(mallory, at: world.relay, register: true)

            let first = try await sender.createBlob(size: 1 << 20, recipients: [bob.token])
            _ = try await sender.createBlob(size: 1 << 20, recipients: [bob.token])
            await #expect(throws: WotsError(.blobQuotaExceeded, "")) {
                _ = try await sender.createBlob(size: 1, recipients: [bob.token])
            }
            await #expect(throws: WotsError(.blobTooLarge, "")) {
                _ = try await stranger.createBlob(size: (1 << 20) + 1, recipients: [bob.token])
            }
            await #expect(throws: WotsError(.unknownBlob, "")) { _ = try await stranger.blobOffset(first.id) }
            await #expect(throws: WotsError(.unknownBlob, "")) { try await stranger.acknowledgeBlob(first.id) }
            let target = world.folder.appendingPathComponent("stolen").path
            await #expect(throws: WotsError(.unknownBlob, "")) {
                try await stranger.downloadBlob(first.id, to: target, size: 1 << 20)
            }
        }
    }
}
