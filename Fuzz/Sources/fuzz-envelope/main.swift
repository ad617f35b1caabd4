import FuzzSupport

Fuzz.run(EnvelopeFuzzer.check)
