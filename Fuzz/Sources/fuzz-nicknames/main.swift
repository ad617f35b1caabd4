import FuzzSupport

Fuzz.run(NicknamesFuzzer.check)
