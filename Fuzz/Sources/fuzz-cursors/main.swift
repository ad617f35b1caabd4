import FuzzSupport

Fuzz.run(CursorsFuzzer.check)
