import FuzzSupport

Fuzz.run(PublicKeysFuzzer.check)
