import Testing

@testable import WotsClient

/// A sender's file name is only ever a name: never a path, never hidden, never empty.
@Suite struct AttachmentNameTests {
    @Test(
        arguments: [
            ("report.pdf", "report.pdf"),
            ("../../etc/passwd", "passwd"),
            ("/home/bob/.ssh/authorized_keys", "authorized_keys"),
            ("..\\..\\boot.ini", "boot.ini"),
            (".bashrc", "bashrc"),
            ("..", "attachment"),
            ("a/", "a"),
            ("bad\u{0}\u{1B}[2Jname.txt", "bad[2Jname.txt"),
            ("   ", "attachment"),
        ]
    )
    func theSendersNameIsReducedToOneHarmlessFileName(given: String, saved: String) {
        #expect(AttachmentSaver.safeName(given) == saved)
    }

    @Test func aTakenNameGetsItsNumberBeforeTheExtension() {
        #expect(AttachmentSaver.split("photo.jpg") == ("photo", ".jpg"))
        #expect(AttachmentSaver.split("archive.tar.gz") == ("archive.tar", ".gz"))
        #expect(AttachmentSaver.split("README") == ("README", ""))
    }
}
