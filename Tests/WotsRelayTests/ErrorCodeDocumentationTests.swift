import Foundation
import HTTPTypes
import Testing
import WotsCore
import WotsRelay

/// SECURITY.md's table of error codes is the code list in WotsCore, with the statuses the relay answers.
@Suite struct ErrorCodeDocumentationTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The rows of the "Error codes" table: code → (status, meaning).
    static func documentedCodes() throws -> [(code: String, status: String, meaning: String)] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("SECURITY.md"), encoding: .utf8)
        let section = try #require(text.range(of: "## Error codes"))
        return text[section.upperBound...].split(separator: "\n")
            .prefix { !$0.hasPrefix("## ") }
            .filter { $0.hasPrefix("| `") }
            .map { line in
                let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                return (
                    String(cells[1].dropFirst().dropLast()), cells[2],
                    cells[3].replacingOccurrences(of: "\\|", with: "|")
                )
            }
    }

    @Test func everyCodeIsDocumentedOnceWithItsStatusAndMeaning() throws {
        let documented = try Self.documentedCodes()
        #expect(documented.map(\.code) == ErrorCode.allKnown.map(\.name), "same codes, same order")
        for (row, code) in zip(documented, ErrorCode.allKnown) {
            let status = code.isClientSide ? "client" : String(code.httpStatus.code)
            #expect(row.status == status, "\(code)")
            #expect(row.meaning == code.summary, "\(code)")
        }
    }

    @Test func theAPIDocumentsPointToTheTable() throws {
        let openAPI = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("schema/openapi.yaml"),
            encoding: .utf8
        )
        #expect(openAPI.contains("SECURITY.md (\"Error codes\")"))
        let stream = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("schema/stream.md"),
            encoding: .utf8
        )
        #expect(stream.contains("SECURITY.md, \"Error codes\""))
    }
}
