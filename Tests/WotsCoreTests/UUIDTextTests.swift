import Foundation
import Testing
import WotsCore

/// Message ids are written and read by hand on the relay's hot path; both must agree with Foundation's text form.
@Suite struct UUIDTextTests {
    @Test func theLowercaseFormIsFoundationsFormInLowercase() {
        for _ in 0..<1_000 {
            let id = UUID()
            #expect(id.lowercasedString == id.uuidString.lowercased())
        }
        let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        #expect(zero.lowercasedString == "00000000-0000-0000-0000-000000000000")
        let ones = UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))
        #expect(ones.lowercasedString == "ffffffff-ffff-ffff-ffff-ffffffffffff")
    }

    @Test func theTextFormInEitherCaseIsReadAsFoundationReadsIt() {
        for _ in 0..<1_000 {
            let id = UUID()
            for text in [id.lowercasedString, id.uuidString, id.uuidString.lowercased().capitalized] {
                #expect(UUID(text: text) == id)
                #expect(UUID(text: text) == UUID(uuidString: text))
            }
        }
    }

    @Test(arguments: [
        "", "0", "00000000-0000-0000-0000-00000000000", "00000000-0000-0000-0000-0000000000000",
        "00000000000000000000000000000000", "{00000000-0000-0000-0000-000000000000}",
        "0000000-00000-0000-0000-000000000000", "00000000-0000-0000-0000-00000000000g",
        "00000000-0000-0000-0000+000000000000", " 00000000-0000-0000-0000-000000000000",
    ])
    func anythingButThe36CharacterFormIsRefused(text: String) {
        #expect(UUID(text: text) == nil)
    }
}
