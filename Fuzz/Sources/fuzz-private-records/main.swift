import FuzzSupport

Fuzz.run(PrivateRecordsFuzzer.check)
