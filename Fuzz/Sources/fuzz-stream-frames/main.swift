import FuzzSupport

Fuzz.run(StreamFramesFuzzer.check)
