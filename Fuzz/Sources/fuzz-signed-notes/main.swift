import FuzzSupport

Fuzz.run(SignedNotesFuzzer.check)
