import FuzzSupport

Fuzz.run(JSONBodiesFuzzer.check)
